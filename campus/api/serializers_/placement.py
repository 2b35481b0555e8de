"""Request and response shapes of capacity placement (POST /api/campuses/{id}/placement/)."""

from rest_framework import serializers

from campus.analysis.placement import CONSTRAINTS, MAX_RACKS
from campus.api.serializers_.branches import TextOnlyField, new_campus_name
from campus.measured import DEFAULT_MARGIN
from campus.models import NodeModel
from twin.api.serializers.base import StrictFieldsMixin


class PlacementRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    node_model = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=NodeModel.objects.all(),
        help_text="Slug of the catalog node model to place (GET /api/node-models/).",
    )
    racks = serializers.IntegerField(min_value=1, max_value=MAX_RACKS, help_text="How many racks to place.")
    nodes_per_rack = serializers.IntegerField(
        min_value=1,
        max_value=72,
        required=False,
        help_text="Servers per rack; default: the commonest count of this model in the campus's racks, "
        "else as many as fit 36 usable rack units.",
    )
    hall = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, required=False, help_text="Only this hall of the campus (id)."
    )
    apply_as_branch = TextOnlyField(
        max_length=128,
        required=False,
        help_text="Create a design branch of this name with the racks of the best option placed; when nothing "
        "fits, with the expansion proposal's additions built and its racks placed.",
    )
    propose = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Answer with an expansion `proposal` even when the racks fit (it always comes when nothing "
        "fits).",
    )

    basis = serializers.ChoiceField(
        choices=[("design", "design"), ("measured", "measured")],
        required=False,
        default="design",
        help_text="The existing racks' load: `design` (the model's) or `measured` (each measured rack at its "
        "measured peak, the highest 5-minute mean of the last 30 days held, plus `margin`; the others at "
        "their modelled load; docs/live.md).",
    )
    margin = serializers.FloatField(
        required=False,
        default=DEFAULT_MARGIN,
        min_value=0.0,
        max_value=2.0,
        help_text=f"With basis=measured: the fraction added to each measured peak (default {DEFAULT_MARGIN}).",
    )

    def get_fields(self):
        fields = super().get_fields()
        # "async" is a Python keyword: the field cannot be a class attribute
        fields["async"] = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Run the placement (and its proposal) as a background job: 202 with the job's `url`; "
            "the job's `result` is the body this request would answer, its `progress` the proposal's "
            "(docs/placement.md). Not with `apply_as_branch`.",
        )
        return fields

    def validate_apply_as_branch(self, value: str) -> str:
        return new_campus_name(value)

    def validate(self, attrs):
        if attrs.get("async") and attrs.get("apply_as_branch") is not None:
            raise serializers.ValidationError(
                {"async": ["Not with apply_as_branch: a branch is applied inside the request."]}
            )
        return attrs


class PlacementJobSerializer(serializers.Serializer):
    job = serializers.IntegerField(help_text="The job's id.")
    url = serializers.URLField(help_text="GET it for status, progress and, once succeeded, the result.")


class PlacedLinkSerializer(serializers.Serializer):
    switch = serializers.CharField(help_text="Leaf switch group the cable lands on.")
    count = serializers.IntegerField(help_text="Cables (one per NIC port on this group).")
    length_m = serializers.FloatField()
    medium = serializers.CharField(help_text="Cheapest medium that reaches the length (link-media slug).")
    speed_gbps = serializers.FloatField()


class PlacedUplinkSerializer(serializers.Serializer):
    switch = serializers.CharField(help_text="Leaf switch group the cables go up from.")
    to = serializers.CharField(help_text="Upper switch group (spine) they land on.")
    count = serializers.IntegerField(help_text="Cables added, as many as the spine-port check counts.")
    medium = serializers.CharField(help_text="As the group's first link up to `to` (link-media slug).")
    length_m = serializers.FloatField()
    speed_gbps = serializers.FloatField()


class PlacedRackSerializer(serializers.Serializer):
    x_m = serializers.FloatField(help_text="Corner of the rack in its hall, m.")
    y_m = serializers.FloatField()
    row = serializers.CharField(
        allow_null=True, help_text="Existing row at this line (null: a new row line)."
    )
    feed_a = serializers.CharField(help_text="Power device feeding side A.")
    feed_b = serializers.CharField(
        allow_null=True,
        help_text="Power device feeding side B; null on a campus declared power_redundancy N (one feed).",
    )
    cooling_unit = serializers.CharField()
    pod = serializers.CharField(allow_null=True)
    cooling_type = serializers.CharField()
    design_kw = serializers.FloatField(help_text="IT load of the rack at full TDP, kW.")
    feed_rating_kw = serializers.FloatField(help_text="Rating of each new rack feed, kW.")
    nodes = serializers.IntegerField()
    links = PlacedLinkSerializer(many=True)


class HeadroomAfterSerializer(serializers.Serializer):
    power_kw = serializers.FloatField(
        help_text="Rack IT that could still be added before any device or utility feed the racks load reaches "
        "its planning limit after the worst single failure (or the grid connection its limit), kW of rack IT."
    )
    power_level = serializers.CharField(help_text="Kind of that element (pdu, ups, ..., utility, grid).")
    power_element = serializers.CharField()
    power_element_headroom_kw = serializers.FloatField(
        help_text="That element's own headroom at its input (at the grid for the grid), kW."
    )
    power_failure = serializers.DictField(help_text="The failure giving it: {kind, id, name}.")
    cooling_kw = serializers.FloatField(
        help_text="Rack IT that could still be added before a cooling unit, pool (with the declared cooling "
        "redundancy kept) or plant loop runs out, kW of rack IT."
    )
    cooling_level = serializers.CharField(
        help_text="Kind of that element: cooling unit, cooling group, hall air units or plant loop."
    )
    cooling_element = serializers.CharField()
    cooling_element_headroom_kw = serializers.FloatField(help_text="That element's own margin, kW of heat.")
    floor_positions = serializers.IntegerField(
        help_text="Free rack positions left in the hall after these racks (row gaps, row ends, new row lines)."
    )
    fabric_ports = serializers.IntegerField(
        allow_null=True, help_text="Free leaf ports left (null: no fabric)."
    )


class PlacementOptionSerializer(serializers.Serializer):
    hall = serializers.CharField(help_text="Hall name; names repeat from building to building.")
    hall_id = serializers.IntegerField()
    building = serializers.CharField(allow_null=True, help_text="Name of the hall's building.")
    building_id = serializers.IntegerField(allow_null=True)
    racks = PlacedRackSerializer(many=True)
    uplinks = PlacedUplinkSerializer(
        many=True,
        required=False,
        help_text="Cables up from the leaves taking the racks: a leaf group cabled up is non-blocking, so node "
        "cables beyond its uplinks need as many new uplinks (written into a branch with the racks).",
    )
    headroom_after = HeadroomAfterSerializer()


class BindingSerializer(serializers.Serializer):
    constraint = serializers.CharField(help_text="The same as `binding_constraint`.")
    hall = serializers.CharField(
        help_text="Hall name (empty when the campus has no hall); names repeat from building to building, "
        "so `building` and `hall_id` say which hall it is."
    )
    hall_id = serializers.IntegerField(allow_null=True, help_text="The hall's id (null: no hall).")
    building = serializers.CharField(allow_null=True, help_text="Name of the hall's building.")
    building_id = serializers.IntegerField(allow_null=True)
    level = serializers.CharField(
        help_text="Level that binds: a device kind, cooling unit/group/plant, leaf, hall."
    )
    element = serializers.CharField(help_text="The device, group, switch or hall that binds.")
    detail = serializers.CharField()


class ShortAtDesignSerializer(serializers.Serializer):
    constraint = serializers.ChoiceField(choices=["cooling", "power", "grid"])
    level = serializers.CharField(
        help_text="cooling unit, cooling plant, cooling group, hall air units or plant loop (cooling); a device "
        "kind or utility (power); grid."
    )
    element = serializers.CharField(
        help_text="The element's name, as the summary and the redundancy check name it."
    )
    shortfall_kw = serializers.FloatField(
        help_text="How far it is short with nothing placed, kW: heat beyond its capacity (a pool: beyond its "
        "usable capacity with the declared cooling redundancy kept), load beyond a power element's planning "
        "limit after its worst single failure (kW at its input), facility load beyond the grid connection at "
        "the peak hour (kW at the grid)."
    )
    detail = serializers.CharField()
    hall = serializers.CharField(help_text='The hall it stands in ("": none, as a plant or a campus device).')
    hall_id = serializers.IntegerField(allow_null=True)
    building = serializers.CharField(
        allow_null=True, help_text="Its building (null: none, as a utility feed)."
    )
    building_id = serializers.IntegerField(allow_null=True)


class AdditionSerializer(serializers.Serializer):
    kind = serializers.CharField(
        help_text="leaf, spine, core, optic; a cooling unit kind (cdu, crah, ...) or plant kind (chiller, "
        "dry-cooler, ...); a power device kind (pdu, ups, transformer, switchgear, substation, ...), "
        "utility_feed, grid; row; hall, building, pod, energy_storage (new space)."
    )
    model = serializers.CharField(
        help_text="Switch model or cable class (link-media slug); unit kind; the module added (e.g. '250 kW ups "
        "module')."
    )
    count = serializers.IntegerField(help_text="How many: switches, cables, units, modules or rows.")
    capacity_kw = serializers.FloatField(
        allow_null=True,
        help_text="kW of one unit or module (cooling: heat; power: rating); null for network.",
    )
    building = serializers.CharField(allow_null=True)
    building_id = serializers.IntegerField(allow_null=True)
    hall = serializers.CharField(allow_null=True)
    hall_id = serializers.IntegerField(allow_null=True)
    row = serializers.CharField(allow_null=True)
    target = serializers.CharField(
        allow_null=True,
        help_text="The element it grows: switch group, cooling unit cloned, plant, power device, utility feed, "
        "grid connection, hall; with `new`, the element it is built like.",
    )
    to = serializers.CharField(allow_null=True, help_text="Optics: the switch group the cables go up to.")
    names = serializers.ListField(
        child=serializers.CharField(),
        help_text="Names of the new cooling units, or of the new element (`new`: hall, building, device, ...).",
    )
    reason = serializers.ChoiceField(
        choices=["fabric_ports", "spine_ports", "cooling", "power", "grid", "space"],
        help_text="The constraint it lifts (space: floor space, a new row, hall or building).",
    )
    new = serializers.BooleanField(
        default=False,
        help_text="A new element (hall, building, utility feed, device, unit, plant, pod, switch group or "
        "cables) built like `target`, under `names`; false: `target` grows.",
    )
    positions = serializers.ListField(
        child=serializers.ListField(
            child=serializers.FloatField(), min_length=2, max_length=2, allow_null=True
        ),
        required=False,
        help_text="New cooling units beside the one they are built like: each one's corner in the hall, "
        "[x_m, y_m] (null: no room found, or the template has no position).",
    )
    with_racks = serializers.BooleanField(
        default=False,
        help_text="Built with the racks (the cables up from the leaves taking them: spine_ports).",
    )
    category = serializers.ChoiceField(choices=["network", "cooling", "power", "grid", "building"])
    capex_usd = serializers.FloatField(help_text="Capital cost of this line, USD (docs/placement.md).")
    lead_time_days = serializers.IntegerField(
        allow_null=True, help_text="Catalog lead time of its kind, days (null: none in the catalog)."
    )


class ProposalSerializer(serializers.Serializer):
    feasible = serializers.BooleanField(
        help_text="The additions make the request fit (false: no hall can grow)."
    )
    hall = serializers.CharField(allow_null=True)
    hall_id = serializers.IntegerField(allow_null=True)
    building = serializers.CharField(allow_null=True)
    building_id = serializers.IntegerField(allow_null=True)
    additions = AdditionSerializer(many=True)
    capex_usd = serializers.FloatField(help_text="Capital cost of every addition, USD.")
    time_to_power_days = serializers.IntegerField(
        allow_null=True,
        help_text="The longest lead time among the additions, days (null: none has one in the catalog).",
    )
    option = PlacementOptionSerializer(
        allow_null=True, help_text="Where the racks go once the additions are built (null: infeasible)."
    )
    detail = serializers.CharField(help_text="When infeasible: what no addition lifts.")


class PlacementSerializer(serializers.Serializer):
    feasible = serializers.BooleanField()
    binding_constraint = serializers.ChoiceField(
        choices=CONSTRAINTS,
        help_text="What binds: when infeasible, why nothing fits; when feasible, what runs out first in the "
        "best option.",
    )
    binding = BindingSerializer(help_text="The level and element that bind, in words.")
    options = PlacementOptionSerializer(
        many=True, help_text="Up to 3, best first (most power headroom left)."
    )
    short_at_design = ShortAtDesignSerializer(
        many=True,
        help_text="Elements already short at design load with nothing placed, the most short first: cooling "
        "units and plants beyond capacity, pools of units and plant loops beyond their usable capacity with the "
        "declared cooling redundancy (the summary's `cooling.groups_failing_redundancy`), power devices and "
        "utility feeds beyond their planning limit after their worst single failure, the grid connection. "
        "No new rack that loads one of them fits; when nothing fits and the list is not empty, its first "
        "element is the `binding` one. Empty when the design holds.",
    )
    proposal = ProposalSerializer(
        required=False,
        allow_null=True,
        help_text="The cheapest additions that make the request fit (when nothing fits, or with `propose`).",
    )
    branch = serializers.IntegerField(required=False, help_text="With apply_as_branch: the new campus's id.")
    basis = serializers.ChoiceField(
        choices=[("design", "design"), ("measured", "measured")],
        required=False,  # a placement job stored before the basis was stated has none
        help_text="The existing racks' load the placement stood on.",
    )
    margin = serializers.FloatField(
        required=False, help_text="With basis=measured: the margin over the peak."
    )
    measured_racks = serializers.IntegerField(
        required=False, help_text="With basis=measured: the racks set to their measured peak."
    )
    window_days = serializers.IntegerField(
        required=False, help_text="With basis=measured: the peak's window."
    )
