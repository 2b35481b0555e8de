"""Generator parameters of the API kept beside its views: the schema's GPU bound, a phase entry of a
build-out, and the island and growth parameters (docs/generator.md)."""

from __future__ import annotations

from rest_framework import serializers

# The hard bound of the API schema; the configured limit (TWIN_GENERATE_MAX_GPUS, campus.jobs) is checked below it.
GENERATE_GPUS_BOUND = 1 << 24


class PhaseEntrySerializer(serializers.Serializer):
    date = serializers.DateField(help_text="The day the phase enters service, YYYY-MM-DD.")
    gpus = serializers.IntegerField(min_value=1, max_value=GENERATE_GPUS_BOUND)
    gpu_model = serializers.SlugField(max_length=64)
    building_max_it_mw = serializers.FloatField(
        min_value=0.1, max_value=2000, required=False, help_text="The phase's own building IT limit, MW."
    )


class IslandParameters(serializers.Serializer):
    """Island size, islands across buildings and the planning margin."""

    island_gpus = serializers.IntegerField(
        min_value=8,
        max_value=524_288,
        required=False,
        allow_null=True,
        default=None,
        help_text="GPUs per compute island (the newer name of pod_max_gpus: islands of at most this many, "
        "each model's GPUs split evenly).",
    )
    island_spans_buildings = serializers.BooleanField(
        default=False,
        help_text="An island larger than building_max_it_mw continues in the next building instead of "
        "being refused.",
    )
    planning_margin_pct = serializers.FloatField(
        min_value=0,
        max_value=100,
        default=0.0,
        help_text="Spare leaf ports, rack positions, power and cooling, % above the design, so racks can "
        "be added later.",
    )
