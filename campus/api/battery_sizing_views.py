"""``POST /api/calculators/battery-sizing/``: the smallest battery (MW, MWh) that rides a curtailment, a
generator start or keeps a training swing inside a limit, with the curve of throughput lost against its
size (campus.analysis.battery_sizing; docs/grid.md, "Battery sizing").

With ``campus``, the load is the campus's full demand in its hour of peak facility power (as grid_limit
reads it) and a curtailment's curve is the grid_limit scenario run on the campus with a battery of each
size (then GPU capping, then pausing); without it, the curve counts the work of every MW not covered as
lost in proportion (an upper bound: capping loses less work than power).
"""

from __future__ import annotations

from dataclasses import replace

from django.urls import path
from django.utils import timezone
from rest_framework import serializers

from campus.analysis import battery_sizing as bs
from campus.analysis.snapshot import CampusSnapshot, EnergyStorageSnap
from campus.api.calculators import CalculatorView, calculator_schema
from campus.catalog_data import default_value
from campus.models import Campus
from campus.state import in_service_snapshot
from simulations.engine.loads import campus_load
from simulations.engine.runner import run_replica
from twin.api.serializers.base import BoundedPrimaryKeyRelatedField, StrictFieldsMixin

MODES = ("curtailment", "generator_start", "training_swing")
CURTAILMENT_FORMS = ("share_of_load", "shed_mw", "target_mw")


class BatterySizingInput(StrictFieldsMixin, serializers.Serializer):
    mode = serializers.ChoiceField(
        choices=MODES,
        default="curtailment",
        help_text="`curtailment` (ride a demand-response event without capping), `generator_start` (carry the "
        "load until the generators are up) or `training_swing` (keep the iteration swing inside a limit).",
    )
    load_mw = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=1e5,
        help_text="The campus's draw at the point of connection, MW.",
    )
    campus = BoundedPrimaryKeyRelatedField(
        queryset=Campus.objects.all(),
        required=False,
        help_text="Take the load from this campus (its full demand in its hour of peak facility power) and "
        "run its curve through the grid_limit scenario.",
    )
    share_of_load = serializers.FloatField(required=False, min_value=0, max_value=1)
    shed_mw = serializers.FloatField(required=False, min_value=0, max_value=1e5)
    target_mw = serializers.FloatField(required=False, min_value=0, max_value=1e5)
    duration_hours = serializers.FloatField(default=3.0, min_value=0.01, max_value=168)
    start_delay_s = serializers.FloatField(
        default=default_value("generator_start_delay_s"), min_value=0, max_value=86_400
    )
    ramp_s = serializers.FloatField(default=default_value("generator_ramp_s"), min_value=0, max_value=86_400)
    swing_mw = serializers.FloatField(required=False, min_value=0, max_value=1e5)
    limit_mw = serializers.FloatField(required=False, min_value=0, max_value=1e5)
    period_s = serializers.FloatField(default=2.0, min_value=0.001, max_value=3_600)
    round_trip_efficiency = serializers.FloatField(
        default=default_value("bess_round_trip_efficiency"), min_value=0.01, max_value=1
    )
    depth_of_discharge = serializers.FloatField(
        default=default_value("bess_depth_of_discharge"), min_value=0.01, max_value=1
    )

    def validate(self, attrs):
        mode = attrs["mode"]
        if mode != "training_swing" and attrs.get("load_mw") is None and attrs.get("campus") is None:
            raise serializers.ValidationError({"load_mw": ["give load_mw or campus."]})
        if mode == "curtailment":
            given = [f for f in CURTAILMENT_FORMS if attrs.get(f) is not None]
            if len(given) > 1:
                raise serializers.ValidationError(
                    {given[1]: [f"give one of {', '.join(CURTAILMENT_FORMS)}."]}
                )
            if not given:
                attrs["share_of_load"] = 0.25
        if mode == "training_swing":
            for f in ("swing_mw", "limit_mw"):
                if attrs.get(f) is None:
                    raise serializers.ValidationError({f: ["required for a training swing."]})
        return attrs


class CurvePoint(serializers.Serializer):
    scale = serializers.FloatField(help_text="Fraction of the smallest battery that rides the need.")
    mw = serializers.FloatField()
    mwh_at_connection = serializers.FloatField()
    uncovered_mwh = serializers.FloatField(help_text="Energy the battery leaves to capping (or to lose).")
    throughput_lost_fraction = serializers.FloatField(
        allow_null=True, help_text="Share of the event's work lost (curtailment only)."
    )


class BatterySizingOutput(serializers.Serializer):
    mode = serializers.ChoiceField(choices=MODES)
    load_mw = serializers.FloatField(allow_null=True)
    mw = serializers.FloatField(help_text="Power at the point of connection (inverter rating), MW.")
    mwh_at_connection = serializers.FloatField(help_text="Energy delivered at the point of connection, MWh.")
    mwh = serializers.FloatField(
        help_text="Nameplate energy: mwh_at_connection / (depth_of_discharge x sqrt(round_trip_efficiency))."
    )
    round_trip_efficiency = serializers.FloatField()
    depth_of_discharge = serializers.FloatField()
    curve_basis = serializers.ChoiceField(
        choices=["campus", "power_proportional"],
        help_text="`campus`: the grid_limit scenario on the campus; `power_proportional`: work lost in "
        "proportion to the power not covered (an upper bound).",
    )
    curve = CurvePoint(many=True)


def _campus_demand_mw(snap: CampusSnapshot) -> float:
    load = campus_load(snap, "bf16", default_value("mfu_bf16"))
    return load.peak_facility_kw([1.0] * len(load.groups)) / 1000.0


def _campus_lost(snap: CampusSnapshot, shed_mw: float, hours: float, rte: float):
    """Share of the event's work lost with a battery of (mw, usable mwh), by the grid_limit scenario."""
    base = replace(snap, energy_storage=())
    step = max(1.0, hours * 60.0 / 2_000)

    def lost(mw: float, mwh: float) -> float:
        bess = (
            (EnergyStorageSnap(0, "sized", mw * 1000.0, mwh * 1000.0, rte, 20.0, None, None),)
            if mw > 0
            else ()
        )
        params = {
            "duration_hours": hours,
            "step_minutes": step,
            "capacity_kw": 1e8,
            "events": [
                {"start_hours": 0.0, "duration_hours": hours, "shed_mw": shed_mw, "notice_minutes": 1440}
            ],
            "policy": "flexibility",
            "flexibility": [{"resource": r} for r in ("battery_storage", "power_capping", "job_pause")],
            "battery_kwh": 0.0,
        }
        result = run_replica("grid_limit", replace(base, energy_storage=bess), params, seed=1)
        return result.metrics["throughput_lost_fraction"]

    return lost


@calculator_schema(
    BatterySizingInput,
    BatterySizingOutput,
    "The smallest battery that rides a curtailment, a generator start or a training swing",
    {"mode": "curtailment", "load_mw": 91, "share_of_load": 0.25, "duration_hours": 3},
    {
        "mode": "curtailment",
        "load_mw": 91.0,
        "mw": 22.75,
        "mwh_at_connection": 68.25,
        "mwh": 92.53,
        "round_trip_efficiency": 0.85,
        "depth_of_discharge": 0.8,
        "curve_basis": "power_proportional",
        "curve": [
            {
                "scale": 0.5,
                "mw": 11.4,
                "mwh_at_connection": 34.1,
                "uncovered_mwh": 34.1,
                "throughput_lost_fraction": 0.125,
            },
            {
                "scale": 1.0,
                "mw": 22.75,
                "mwh_at_connection": 68.25,
                "uncovered_mwh": 0.0,
                "throughput_lost_fraction": 0.0,
            },
        ],
    },
)
class BatterySizingView(CalculatorView):
    serializer_class = BatterySizingInput
    output_serializer = BatterySizingOutput

    def compute(self, data):
        mode = data["mode"]
        rte, dod = data["round_trip_efficiency"], data["depth_of_discharge"]
        snap = None
        load_mw = data.get("load_mw")
        if data.get("campus") is not None:
            snap = in_service_snapshot(data["campus"], timezone.localdate())
            load_mw = _campus_demand_mw(snap)
        if mode == "curtailment":
            if data.get("target_mw") is not None:
                shed = max(0.0, load_mw - data["target_mw"])
            elif data.get("shed_mw") is not None:
                shed = min(load_mw, data["shed_mw"])
            else:
                shed = load_mw * data["share_of_load"]
            hours = data["duration_hours"]
            need = bs.curtailment(shed, hours)
            if snap is not None and load_mw > 0:
                lost, basis = _campus_lost(snap, shed, hours, rte), "campus"
            else:
                event_mwh = load_mw * hours

                def lost(mw: float, mwh: float) -> float:
                    return bs.uncovered_mwh(need, mw, mwh) / event_mwh if event_mwh > 0 else 0.0

                basis = "power_proportional"
        elif mode == "generator_start":
            need = bs.generator_start(load_mw, data["start_delay_s"], data["ramp_s"])
            lost, basis = (lambda mw, mwh: None), "power_proportional"
        else:
            need = bs.training_swing(data["swing_mw"], data["limit_mw"], data["period_s"])
            lost, basis = (lambda mw, mwh: None), "power_proportional"
        return {
            "mode": mode,
            "load_mw": load_mw,
            "mw": need.mw,
            "mwh_at_connection": need.mwh_at_connection,
            "mwh": bs.nameplate_mwh(need.mwh_at_connection, rte, dod),
            "round_trip_efficiency": rte,
            "depth_of_discharge": dod,
            "curve_basis": basis,
            "curve": bs.curve(need, lost),
        }


urlpatterns = [
    path("calculators/battery-sizing/", BatterySizingView.as_view(), name="calculator-battery-sizing"),
]
