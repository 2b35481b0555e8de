"""The reference-design generator's parameters as the API takes them (``POST /api/campuses/generate/``;
docs/generator.md): every field validated, a bad one a 400 naming it, a parameter the generator does not take
refused by name."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campus import jobs
from campus.choices import Climate, Fabric, NicKind, PowerArchitecture, Redundancy, Topology
from campus.interchange.catalog import db_catalog
from campus.interchange.generate import GeneratorError
from campus.interchange.generator.common import (
    DEFAULT_COOLING_REDUNDANCY,
    DEFAULT_POWER_REDUNDANCY,
    FACILITY_WATER_C,
    HEAT_REJECTION,
)
from campus.interchange.generator.document import check_mix_node_models
from campus.interchange.generator.phases import check_phases
from campus.models import Campus, GPUModel
from twin.api.serializers.base import StrictFieldsMixin

# The hard bound of the API schema; the configured limit (TWIN_GENERATE_MAX_GPUS, campus.jobs) is checked below it.
GENERATE_GPUS_BOUND = 1 << 24


class _GeneratorParameters(StrictFieldsMixin):
    """A parameter the generator does not take is refused by name rather than silently ignored."""

    def unknown_field_message(self) -> str:
        return "unknown parameter; the generator takes: " + ", ".join(self.fields)

    # The mix entries and the request itself both take a gpu_model: one of the catalog's GPU models.
    def validate_gpu_model(self, value: str) -> str:
        if not GPUModel.objects.filter(slug=value).exists():
            raise serializers.ValidationError(f'unknown GPU model "{value}"')
        return value


class MixEntrySerializer(_GeneratorParameters, serializers.Serializer):
    gpu_model = serializers.SlugField(max_length=64)
    gpus = serializers.IntegerField(min_value=1, max_value=GENERATE_GPUS_BOUND)
    node_model = serializers.SlugField(
        max_length=64,
        required=False,
        help_text="The server model of this entry (GET /api/node-models/); it must carry gpu_model. "
        "Default: picked by nic, else the GPU model's first server.",
    )


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


@extend_schema_field(PhaseEntrySerializer(many=True))
class PhasesField(serializers.JSONField):
    """The build-out phases, checked as a whole by the generator (``phases[i].field`` names the fault)."""


class GenerateSerializer(_GeneratorParameters, IslandParameters, serializers.Serializer):
    """Parameters of the reference-design generator (docs/generator.md)."""

    name = serializers.CharField(max_length=128)
    gpus = serializers.IntegerField(
        min_value=1,
        max_value=GENERATE_GPUS_BOUND,
        required=False,
        help_text="At most TWIN_GENERATE_MAX_GPUS (1,048,576 by default); above TWIN_JOB_THRESHOLD_GPUS "
        "(50,000) the campus is built by a background job (202).",
    )
    gpu_model = serializers.SlugField(max_length=64, default="h100-sxm")
    fabric = serializers.ChoiceField(choices=Fabric.choices, default=Fabric.INFINIBAND_NDR)
    topology = serializers.ChoiceField(choices=Topology.choices, default=Topology.RAIL_OPTIMIZED)
    nic = serializers.ChoiceField(
        choices=NicKind.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="Picks the server model by NIC kind (default: the GPU model's first server).",
    )
    cooling = serializers.ChoiceField(choices=[("liquid", "Liquid"), ("air", "Air")], default="liquid")
    pue = serializers.FloatField(
        min_value=1.0,
        max_value=3.0,
        required=False,
        allow_null=True,
        default=None,
        help_text="A typed PUE (an override). Omitted or null: the PUE is computed from the plant and the weather.",
    )
    price_usd_per_kwh = serializers.FloatField(min_value=0, max_value=10, default=0.078)
    climate = serializers.ChoiceField(
        choices=Climate.choices, default=Climate.ASHBURN_US, help_text="Reference weather year of the site."
    )
    heat_rejection = serializers.ChoiceField(
        choices=list(HEAT_REJECTION),
        default="auto",
        help_text="The plants: auto (by the climate's design hours, said in the description), evaporative "
        "(water-cooled chillers on towers), air-cooled (air-cooled chillers, no water), dry (dry coolers "
        "and air-cooled chillers), adiabatic (dry coolers with adiabatic assist and air-cooled chillers), "
        "hybrid (adiabatic dry coolers and water-cooled chillers); docs/generator.md.",
    )
    facility_water = serializers.ChoiceField(
        choices=list(FACILITY_WATER_C),
        required=False,
        allow_null=True,
        default=None,
        help_text="ASHRAE liquid cooling class of the facility water (W32, W40, W45: supply at most 32, 40, "
        "45 °C); null: the catalog's loop.",
    )
    mix = MixEntrySerializer(many=True, required=False, allow_empty=False, max_length=32)
    phases = PhasesField(
        required=False,
        help_text="A build-out in phases, [{date, gpus, gpu_model}] in ascending date order (instead of "
        "gpu_model or mix): each phase gets buildings of its own, in service from its date.",
    )
    oversubscription = serializers.FloatField(min_value=1, max_value=64, default=7.0)
    pod_max_gpus = serializers.IntegerField(min_value=8, max_value=524_288, default=8192)
    building_max_it_mw = serializers.FloatField(min_value=0.1, max_value=2000, default=80.0)
    hall_max_it_mw = serializers.FloatField(min_value=0.1, max_value=500, default=20.0)
    racks_per_row = serializers.IntegerField(min_value=1, max_value=60, default=32)
    location = serializers.CharField(max_length=256, required=False, default="", allow_blank=True)
    bess_mw_per_building = serializers.FloatField(
        min_value=0,
        max_value=10_000,
        default=0.0,
        help_text="Battery energy storage per building, MW (half on each substation bus); 0: none.",
    )
    bess_hours = serializers.FloatField(
        min_value=0.01,
        max_value=100,
        required=False,
        allow_null=True,
        default=None,
        help_text="Hours of storage at full power (energy_mwh = power_mw x bess_hours); default 2 h.",
    )
    power_redundancy = serializers.ChoiceField(
        choices=Redundancy.choices,
        default=DEFAULT_POWER_REDUNDANCY,
        help_text="Critical power topology: N (one path), N+1 (distributed redundant blocks, k + 1 make k) "
        "or 2N (two complete paths); docs/generator.md.",
    )
    cooling_redundancy = serializers.ChoiceField(
        choices=Redundancy.choices,
        default=DEFAULT_COOLING_REDUNDANCY,
        help_text="Cooling units and plants: N (as needed), N+1 (one spare per group) or 2N (twice as many).",
    )
    power_architecture = serializers.ChoiceField(
        choices=PowerArchitecture.choices,
        default=PowerArchitecture.AC,
        help_text="Power distribution from medium voltage to the racks; docs/generator.md, 'Power architecture'.",
    )
    replace = serializers.BooleanField(default=False)
    background = serializers.BooleanField(
        default=False, help_text="Build the campus in a background job (202) whatever its size."
    )

    def validate(self, attrs: dict) -> dict:
        mix = attrs.get("mix")
        limit = jobs.generate_max_gpus()
        if "phases" in attrs:
            known = set(GPUModel.objects.values_list("slug", flat=True))
            try:
                check_phases(attrs["phases"], dict.fromkeys(known))
            except GeneratorError as exc:
                raise serializers.ValidationError({exc.field: [exc.message]}) from None
            if sum(p["gpus"] for p in attrs["phases"]) > limit:
                raise serializers.ValidationError(
                    {"phases": f"at most {limit} GPUs in all (TWIN_GENERATE_MAX_GPUS)"}
                )
        elif not mix and attrs.get("gpus") is None:
            raise serializers.ValidationError({"gpus": "give gpus, a mix or phases"})
        if mix and any("node_model" in m for m in mix):
            try:
                check_mix_node_models(mix, db_catalog())
            except GeneratorError as exc:
                raise serializers.ValidationError({exc.field: [exc.message]}) from None
        if mix and sum(m["gpus"] for m in mix) > limit:
            raise serializers.ValidationError(
                {"mix": f"at most {limit} GPUs in all (TWIN_GENERATE_MAX_GPUS)"}
            )
        if not mix and attrs.get("gpus") is not None and attrs["gpus"] > limit:
            raise serializers.ValidationError({"gpus": f"at most {limit} GPUs (TWIN_GENERATE_MAX_GPUS)"})
        if not attrs["replace"] and Campus.objects.filter(name=attrs["name"].strip()).exists():
            raise serializers.ValidationError({"name": f'a campus named "{attrs["name"]}" already exists'})
        return attrs
