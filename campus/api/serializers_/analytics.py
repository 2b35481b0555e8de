"""Query parameters and response shapes of the campus analytics endpoints."""

from rest_framework import serializers

from campus.analysis.capex import DEFAULT_DISCOUNT_RATE, DEFAULT_HORIZON_YEARS
from campus.analysis.impact import KINDS
from campus.analysis.job_reliability import JOB_SETS
from campus.analysis.weather import CLIMATES
from campus.api.serializers_.redundancy_levels import RedundancyLevelSerializer
from campus.measured import DEFAULT_MARGIN
from campus.state import SUMMARY_DEFAULTS
from twin.api.serializers.base import DayField, StrictQueryMixin


class AsOfQuery(serializers.Serializer):
    """The day an analytics answer is for: only what is in service that day counts (docs/planning.md)."""

    as_of = DayField(
        required=False,
        help_text="Count only what is in service on this day, YYYY-MM-DD (default: today). An object is in "
        "service when its in_service_date is empty or on/before the day and its retire_date is empty or "
        "after it; what it contains or feeds follows it.",
    )


def tco_horizon_field() -> serializers.IntegerField:
    return serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=50,
        help_text=f"Years of energy and fuel in the total cost of ownership (default {DEFAULT_HORIZON_YEARS}).",
    )


def tco_discount_field() -> serializers.FloatField:
    return serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=0.5,
        help_text="Yearly discount rate of the total cost of ownership, a fraction "
        f"(default {DEFAULT_DISCOUNT_RATE}).",
    )


class BasisQuery(serializers.Serializer):
    """Headroom on design load or on measured peak (docs/live.md, "Headroom on measured peak")."""

    basis = serializers.ChoiceField(
        choices=[("design", "design"), ("measured", "measured")],
        required=False,
        default="design",
        help_text="`design`: the racks' modelled load; `measured`: each measured rack at its measured peak "
        "(highest 5-minute mean of the last 30 days held) plus `margin`, the others at their modelled load.",
    )
    margin = serializers.FloatField(
        required=False,
        default=DEFAULT_MARGIN,
        min_value=0.0,
        max_value=2.0,
        help_text=f"With basis=measured: the fraction added to each measured peak (default {DEFAULT_MARGIN}).",
    )


class SummaryQuerySerializer(StrictQueryMixin, BasisQuery, AsOfQuery):
    pue = serializers.FloatField(
        required=False,
        min_value=1.0,
        max_value=3.0,
        help_text="A PUE for this answer (default: the campus's typed design_pue, else the plant model's).",
    )
    mfu = serializers.FloatField(
        required=False,
        min_value=0.01,
        max_value=1.0,
        help_text="Model FLOPs utilisation for every precision and job (default: the step-time model of each "
        "declared job's preset workload, docs/training.md; 0.40 BF16, 0.35 FP8 where none fits).",
    )
    gpu_power_fraction = serializers.FloatField(
        required=False,
        default=SUMMARY_DEFAULTS["gpu_power_fraction"],
        min_value=0.05,
        max_value=1.0,
        help_text="Average GPU draw as a fraction of the campus's modelled draw (TDP, or TDP × the campus's "
        "calibrated gpu_power_fraction), for energy. Only the GPUs draw less: the servers' other parts, the "
        "network and the other IT keep their full-load figures.",
    )
    dataset = serializers.CharField(
        required=False,
        default=SUMMARY_DEFAULTS["dataset"],
        max_length=64,
        help_text="Failure-rate data set for the reliability figures: `per-model` (each GPU model with the "
        "set of its own generation and vendor) or one job set applied to every GPU. The component and facility "
        "sets (`optics-component`, `infrastructure-estimates`) describe no job's failures and are refused.",
    )
    checkpoint_minutes = serializers.FloatField(
        required=False,
        min_value=0.01,
        max_value=1440,
        help_text="Checkpoint write time of every job, min (default: each job's checkpoint model from the "
        "inventory's storage system and front end, docs/training.md; without a storage system 5 min).",
    )
    restart_minutes = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=1440,
        help_text="Restart time of every job, min (default: each job's launch plus restore from the "
        "inventory; without a storage system 10 min).",
    )
    air_limit_kw = serializers.FloatField(
        required=False,
        min_value=1,
        max_value=500,
        help_text="Rack density above which air cooling is flagged, kW.",
    )
    include_redundancy = serializers.BooleanField(
        required=False, default=True, help_text="Run the single-failure redundancy check."
    )
    horizon_years = tco_horizon_field()
    discount_rate = tco_discount_field()
    jobs = serializers.ChoiceField(
        choices=JOB_SETS,
        required=False,
        help_text="The jobs the headline ETTR and effective compute are for (`reliability.headline`): "
        "`islands` (default), one synchronous job per island (pod); `campus`, one job over every GPU.",
    )


# Elements one compound failure may name, and the longest ``kind:id,`` item (a 19-digit bigint id): one
# comma-separated ``failed`` value holds them all.
MAX_FAILED_ELEMENTS = 500
LONGEST_ELEMENT = max(len(kind) for kind in KINDS) + len(":") + len(str(2**63 - 1)) + len(",")


class ImpactQuerySerializer(StrictQueryMixin, AsOfQuery):
    device = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        help_text="Id of the power device, cooling unit, plant or utility feed.",
    )
    kind = serializers.ChoiceField(
        choices=KINDS,
        default="power",
        help_text="What `device` names: a power device, a cooling unit, a cooling plant or a utility feed.",
    )
    failed = serializers.ListField(
        child=serializers.CharField(max_length=MAX_FAILED_ELEMENTS * LONGEST_ELEMENT),
        required=False,
        max_length=200,
        help_text="Elements failed together, as `kind:id` (kind: " + ", ".join(KINDS) + "), comma-separated "
        "and/or repeated: `?failed=power:12,cooling:7&failed=plant:3`. Combines with `device`/`kind`.",
    )

    MAX_ELEMENTS = MAX_FAILED_ELEMENTS

    def validate_failed(self, value: list[str]) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        for chunk in value:
            for item in chunk.split(","):
                item = item.strip()
                if not item:
                    continue
                kind, sep, ident = item.partition(":")
                if not sep or kind not in KINDS:
                    raise serializers.ValidationError(
                        f"{item!r}: expected kind:id with kind one of {', '.join(KINDS)}"
                    )
                try:
                    number = int(ident)
                except ValueError:
                    raise serializers.ValidationError(f"{item!r}: the id must be an integer") from None
                if not 1 <= number <= 2**63 - 1:
                    raise serializers.ValidationError(f"{item!r}: the id must be a positive integer")
                out.append((kind, number))
        if len(out) > self.MAX_ELEMENTS:
            raise serializers.ValidationError(f"at most {self.MAX_ELEMENTS} elements")
        return out

    def validate(self, attrs: dict) -> dict:
        elements = list(attrs.get("failed") or [])
        if "device" in attrs:
            elements.insert(0, (attrs["kind"], attrs["device"]))
        if not elements:
            raise serializers.ValidationError({"device": ["give `device` (with `kind`) or `failed`."]})
        attrs["elements"] = elements
        return attrs


class FloorMapQuerySerializer(StrictQueryMixin, BasisQuery, AsOfQuery):
    hall = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        help_text="One hall in detail; without it, the whole campus in compact form.",
    )


class PowerChainQuerySerializer(StrictQueryMixin, BasisQuery, AsOfQuery):
    rack = serializers.IntegerField(min_value=1, max_value=2**63 - 1)


class RedundancyQuerySerializer(StrictQueryMixin, AsOfQuery):
    include_single_points = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Also report elements whose loss costs GPUs without tripping anything (effect `power` or "
        "`cooling`); false lists the cascades only.",
    )


class RedundancyFindingSerializer(serializers.Serializer):
    device_kind = serializers.ChoiceField(
        choices=KINDS, help_text="What failed, in the words impact mode takes as `kind`."
    )
    device_id = serializers.IntegerField()
    device_name = serializers.CharField()
    effect = serializers.ChoiceField(
        choices=["power", "cooling", "cascade"],
        help_text="`cascade`: its loss trips another element; `power`: racks lose all power; `cooling`: "
        "powered racks lose cooling.",
    )
    gpus_lost = serializers.IntegerField(help_text="GPUs without power plus GPUs without cooling.")
    gpus_lost_power = serializers.IntegerField()
    gpus_lost_cooling = serializers.IntegerField()
    kind = serializers.ChoiceField(
        choices=["cascade", "single-point"], help_text="Earlier classification, kept for clients."
    )
    tripped = serializers.ListField(child=serializers.DictField())
    racks_lost = serializers.ListField(
        child=serializers.IntegerField(), help_text="Racks without power or cooling."
    )
    racks_lost_cooling = serializers.ListField(child=serializers.IntegerField())


class DeclaredRedundancySerializer(serializers.Serializer):
    field = serializers.CharField(
        help_text="The campus field declaring it: `campus.power_redundancy` or `campus.cooling_redundancy`."
    )
    domain = serializers.ChoiceField(choices=["power", "cooling"])
    declared = serializers.CharField(help_text="N, N+1, 2N, or empty when not declared.")
    achieved = serializers.ChoiceField(
        choices=["N", "N+1", "2N"],
        help_text="N with a single point of failure in the domain or a pool in `pools_failing` short of N+1; "
        "N+1 when 2N is declared, no single point is found and a pool is short of 2N; 2N for cooling when 2N "
        "is declared, no single point is found and every pool of units and every plant loop carries its heat "
        "with the larger half of its capacity out (power has no pool check: single failures alone cannot "
        "tell 2N from N+1, so its best is N+1); else N+1 (or better).",
    )
    severity = serializers.ChoiceField(
        choices=["ok", "warning", "error"],
        help_text="error: N+1 or 2N declared and a single point found, or a redundancy declared and a pool "
        "short of it (`pools_failing`), or racks already down at design (`racks_down_at_design`); warning: N declared, its single points were asked for; ok otherwise.",
    )
    single_points = serializers.ListField(child=serializers.CharField(), help_text="Names of the elements.")
    pools_failing = serializers.ListField(
        child=serializers.DictField(),
        help_text="Cooling: the pools of units whose heat is above their usable capacity with the declared "
        "cooling_redundancy (N every unit, N+1 the largest out, 2N the larger half out; undeclared as N+1), "
        "the summary's `cooling.pools_failing_redundancy`: {name, kind (`group`, `hall air units`: a "
        "hall's ungrouped CRAHs pooled as one, or `plant loop`: the plants of a building sharing a water "
        "loop, named `<building> plant loop (<plants>)`), units, heat_kw, capacity_kw, usable_capacity_kw, "
        "redundancy, holds, hall_id, hall, building_id, building}. Power: always empty.",
    )
    checked_at_gpu_power_fraction = serializers.FloatField(
        help_text="The load the pools were checked at: GPUs at this fraction of TDP. Always 1.0 here (design "
        "load: every GPU at TDP); the summary checks them at its `gpu_power_fraction` and says so in "
        "`cooling.checked_at_gpu_power_fraction`. Single points are always found at design load."
    )
    racks_down_at_design = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Racks already lost with nothing failed: power, without power at design load (an element "
        "offline or failed, a design-load trip, no feed); cooling, powered and without cooling at design. "
        "Any makes the domain an error, achieved N.",
    )
    gpus_down_at_design = serializers.IntegerField(help_text="GPUs of `racks_down_at_design`.")
    message = serializers.CharField()


class RedundancySerializer(serializers.Serializer):
    count = serializers.IntegerField()
    findings = RedundancyFindingSerializer(many=True)
    declared = DeclaredRedundancySerializer(
        many=True,
        help_text="The design check of the campus's declared power_redundancy and cooling_redundancy against "
        "the single points found (all of them, whatever include_single_points) and, for cooling, the pools "
        "of units short of the declared redundancy (`pools_failing`).",
    )
    unfed_racks = serializers.ListField(
        child=serializers.DictField(),
        help_text="Racks with a load and no power feed ({id, name, hall_id, gpus, fed_kw}): dark before any "
        "failure, their GPUs never usable; no failure finding names them.",
    )
    levels = RedundancyLevelSerializer(
        many=True,
        help_text="The level each domain achieves (N, N+1, 2N: every single failure and every pair of "
        "one out for maintenance and one failed), per chain, with what falls short of the declared level.",
    )


class StrandedQuerySerializer(StrictQueryMixin, BasisQuery, AsOfQuery):
    racks = serializers.BooleanField(required=False, default=False, help_text="Include one row per rack.")


class SummarySerializer(serializers.Serializer):
    campus = serializers.DictField()
    inventory = serializers.DictField()
    power = serializers.DictField(
        help_text="Includes `headroom_after_failover_mw` (IT MW the campus can add with the design "
        "redundancy intact, within its rack feeds and its grid connection) and `headroom_binding` (device, "
        "rack feed or grid, and failure that bind it); `racks_without_power` of which `unfed_racks` have a "
        "load and no feed."
    )
    cooling = serializers.DictField(
        help_text="`heat_load_mw` (= IT power); `capacity_mw`: the cooling units' usable capacity with the "
        "declared cooling redundancy intact (`capacity_redundancy`: per pool of units that back each other up, "
        "N every unit, N+1 the largest lost, 2N the larger half lost), split by heat path in "
        "`capacity_by_path_mw` (`liquid`: CDUs, rear doors, tanks; `air`: CRAHs); `spare_mw`: IT heat that can "
        "still be added with the declared redundancy intact in units and plants (0 while a pool or a plant "
        "loop is short; `unit_spare_mw`: each pool's usable capacity above its heat, summed; `plant_spare_mw`: "
        "each plant loop's, as IT heat); nameplates with "
        "spares: `unit_capacity_mw`, `plant_capacity_mw`; `plant_usable_capacity_mw`: plants pooled per "
        "building with the declared redundancy; `groups_failing_redundancy`: the names of the pools (named "
        "groups, then halls' ungrouped CRAHs pooled as one, named `<building> <hall> air units`, then plant "
        "loops, named `<building> plant loop (<plants>)`) whose heat "
        "is above their usable capacity with the declared redundancy (`groups_failing_n_plus_1`: the same "
        "list under its earlier name; `pools_failing_redundancy`: the same pools with their figures, hall "
        "and building, as the redundancy endpoint's `declared[].pools_failing`); `achieved_redundancy`: the "
        "level the cooling achieves, the redundancy endpoint's cooling `declared[].achieved` by the same rule "
        "(null with include_redundancy=false), equal to `capacity_redundancy` when every pool holds it; "
        "`checked_at_gpu_power_fraction`: the load the pools were checked at, GPUs at this fraction of TDP "
        "(the query's `gpu_power_fraction`; the redundancy endpoint checks at design load, 1.0) "
        '(docs/model.md, "Balance").'
    )
    network = serializers.DictField()
    compute = serializers.DictField(
        help_text="Peak and effective PFLOPS by precision; effective = the declared jobs' peak x MFU x ETTR. "
        "`mfu`: the jobs' step-time MFU (their preset workloads, docs/training.md) weighted by peak, "
        "`mfu_source` `step-time model`, `typed` (the `mfu` parameter) or `catalog default`."
    )
    reliability = serializers.DictField(
        help_text="The campus-wide job (`expected_ettr` and beside it, its recovery's source in "
        "`checkpoint_minutes_source`) and `headline`: the declared jobs, each with its recovery and its "
        "`training` model (workload, MFU, checkpoint against the inventory's storage and front end)."
    )
    grid = serializers.DictField(
        help_text="`region`: the grid the site sits on (from its climate site profile); `rules`: every "
        "large-load interconnection rule as `{id, rule, source, applies, requires, why}` — whether the campus "
        "falls under it (region, peak facility power against the rule's threshold, on-site sources), what it "
        "requires and why it applies; a year's CO2: `grid_co2_t_per_mwh` (the region's, with "
        "`grid_co2_source`), `grid_emissions_tco2`, `onsite_emissions_tco2` (standby sets serving the energy "
        "above the connection), `emissions_tco2`, and the generators' `fuel_cost_usd` "
        '(docs/grid.md, "Large-load rules", "Prime generation and emissions").',
        required=False,
    )
    capex = serializers.DictField(
        help_text="`capex_usd` by category (power, cooling, network, compute, building) and `total`, from the "
        "bill of materials (GET /api/campuses/{id}/bom/); `usd_per_mw_it`: the total per MW of design IT; "
        "`tco`: capex plus the year's grid energy and generator fuel over `horizon_years`, discounted at "
        "`discount_rate` (query parameters; docs/capex.md)."
    )
    buildings = serializers.ListField(
        child=serializers.DictField(),
        help_text="Cards; `headroom_mw` is measured after the worst single failure or side loss "
        "(`headroom_binding`), `headroom_both_sides_mw` adds both sides' healthy headroom (for comparison).",
    )


class ImpactSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="Kind of the first failed element.")
    device_id = serializers.IntegerField(help_text="Id of the first failed element.")
    device_name = serializers.CharField()
    failed = serializers.ListField(
        child=serializers.DictField(), help_text="Every failed element: `{kind, id, name}`."
    )
    effect = serializers.ChoiceField(
        choices=["power", "cooling", "cascade"],
        allow_null=True,
        help_text="`cascade` when another element trips, else `power` or `cooling` when GPUs are lost, "
        "else null.",
    )
    gpus_lost = serializers.IntegerField(
        help_text="GPUs without power, plus GPUs powered but without cooling."
    )
    racks = serializers.DictField(child=serializers.ListField(child=serializers.IntegerField()))
    gpus = serializers.DictField(child=serializers.IntegerField())
    tripped = serializers.ListField(child=serializers.DictField())
    dead_devices = serializers.ListField(child=serializers.IntegerField())
    cooling_units_stopped = serializers.ListField(child=serializers.IntegerField())
    plants_stopped = serializers.ListField(child=serializers.IntegerField())
    job = serializers.DictField()


class FloorMapSerializer(serializers.Serializer):
    hall = serializers.DictField(required=False, help_text="With ?hall: the hall's position and size, m.")
    racks = serializers.ListField(
        help_text="With ?hall: one object per rack. Without: one array per rack, in `rack_columns` order."
    )
    cooling_units = serializers.ListField(child=serializers.DictField(), required=False)
    campus = serializers.DictField(required=False, help_text="Without ?hall: id, name and `headroom_mw`.")
    buildings = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Without ?hall: buildings and their halls, each with `headroom_mw` (after the worst single "
        "failure) and `headroom_binding`.",
    )
    rack_columns = serializers.ListField(child=serializers.CharField(), required=False)


class ScopeHeadroomSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    headroom_mw = serializers.FloatField(
        allow_null=True,
        help_text="IT load that can be added with the design redundancy intact (after the worst single "
        "failure or side loss), MW; null when there are no fed racks to place it on.",
    )
    headroom_binding = serializers.DictField(
        allow_null=True,
        help_text="What binds it (`kind`: a device kind, `utility`, `feed` for a rack feed, `grid` for the campus "
        "grid connection) and the failure that binds it.",
    )


class PowerChainSerializer(serializers.Serializer):
    rack = serializers.DictField()
    hall = ScopeHeadroomSerializer(help_text="The rack's hall and its headroom after failover.")
    building = ScopeHeadroomSerializer(help_text="The rack's building and its headroom after failover.")
    sides = serializers.ListField(
        child=serializers.DictField(),
        help_text="Per side: feeds, devices (with `headroom_kw` of the healthy chain and "
        "`headroom_after_failover_kw` after the worst single failure, with `worst_failure`) and utility feeds.",
    )


class StrandedRowSerializer(serializers.Serializer):
    scope = serializers.CharField()
    id = serializers.IntegerField(allow_null=True)
    provisioned_kw = serializers.FloatField(help_text="Strongest side's feed rating of the racks, kW.")
    design_margin_kw = serializers.FloatField(
        help_text="Planning margin (1 - max_utilization of the feeding device), reported apart, not stranded."
    )
    usable_kw = serializers.FloatField(
        help_text="IT the racks can use with the design redundancy intact, kW."
    )
    stranded_kw = serializers.FloatField()
    binding = serializers.CharField(
        allow_blank=True,
        help_text="The constraint stranding the most kW in the scope, the same rule at every scope (a tie "
        "goes to the first of feed, design, upstream, cooling, space, grid; '' when nothing is stranded).",
    )
    binding_device = serializers.DictField(
        allow_null=True,
        help_text="Whenever `upstream` strands any kW in the scope: the device and failure stranding the most.",
    )
    stranded_by_constraint_kw = serializers.DictField(child=serializers.FloatField())
    limits_kw = serializers.DictField(
        child=serializers.FloatField(),
        help_text="IT each constraint allows the scope, kW; `racks`: the racks' own usable kW (feeds and "
        "design_kw) summed, at every scope.",
    )


class StrandedSerializer(serializers.Serializer):
    campus = StrandedRowSerializer()
    buildings = StrandedRowSerializer(many=True)
    halls = StrandedRowSerializer(many=True)
    racks = StrandedRowSerializer(many=True, required=False)


class FacilityYearQuerySerializer(StrictQueryMixin, AsOfQuery):
    gpu_power_fraction = serializers.FloatField(
        required=False,
        default=1.0,
        min_value=0.05,
        max_value=1.0,
        help_text="Average GPU draw as a fraction of the campus's modelled draw (TDP, or TDP × the campus's "
        "calibrated gpu_power_fraction). Only the GPUs draw less: the servers' other parts, the network and "
        "the other IT keep their full-load figures.",
    )
    climate = serializers.ChoiceField(
        choices=CLIMATES,
        required=False,
        help_text="Run the year in this shipped reference climate instead of the campus's own weather.",
    )


def _hourly(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.FloatField(allow_null=True), help_text=help_text)


class FacilityYearSerializer(serializers.Serializer):
    climate = serializers.CharField(help_text="The climate the hours come from.")
    weather_source = serializers.CharField(
        help_text="Where the weather comes from (normals or uploaded file)."
    )
    pue_source = serializers.ChoiceField(
        choices=["plant-model", "override"],
        help_text="Where the summary's PUE comes from: the hours below, or the campus's typed design_pue.",
    )
    dry_bulb_c = _hourly("Dry-bulb temperature of each hour of the year, °C (8,760 values).")
    wet_bulb_c = _hourly("Wet-bulb temperature, °C.")
    it_mw = _hourly("IT power, MW.")
    facility_mw = _hourly("Facility power: IT + conversion losses + cooling, MW.")
    pue = _hourly("Facility over IT power.")
    water_l = _hourly("Cooling-tower make-up water (evaporation + blowdown) in the hour, L.")
    cooling_margin_mw = _hourly(
        "Heat the plants could still reject, MW; negative: the heat they cannot reject in that hour."
    )
    annual = serializers.DictField(
        help_text="pue (energy-weighted), max_pue, peak_facility_mw, peak_hour, annual_energy_mwh, "
        "wue_l_per_kwh, water_m3, hours_short and per plant its power, free-cooling hours and hours short."
    )
    design = serializers.DictField(
        required=False,
        help_text="The campus's own weather only: the plant at the site's design conditions (docs/model.md, "
        "Design weather): the conditions with their source, peak_facility_mw, hours_short and per design "
        "hour its dry and wet bulb, facility power, PUE and cooling margin.",
    )


class TimelineQuerySerializer(StrictQueryMixin, AsOfQuery):
    pass


class TimelinePointSerializer(serializers.Serializer):
    date = serializers.DateField(
        help_text="The day (an in_service_date or retire_date of the campus, or as_of)."
    )
    gpus = serializers.IntegerField(help_text="GPUs in service that day.")
    it_mw = serializers.FloatField(help_text="IT power at full GPU TDP of what is in service, MW.")
    facility_mw = serializers.FloatField(help_text="Facility power (IT + conversion losses + cooling), MW.")
    headroom_mw = serializers.FloatField(
        allow_null=True,
        help_text="IT MW the campus could still add with its design redundancy intact "
        "(the summary's headroom_after_failover_mw).",
    )


class TimelineSerializer(serializers.Serializer):
    points = TimelinePointSerializer(many=True, help_text="One point per day something changes, sorted.")
