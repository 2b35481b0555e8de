"""The analytics endpoints' figures, each computed from a campus state (``campus.state``) and kept with it
until the campus's revision grows: impact, redundancy, stranded capacity, power chain, facility year and
the timeline of phases. The summary and the floor map, whose default bodies every process shares, are
computed in ``campus.state`` itself.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from campus import models
from campus.analysis import facility, summary
from campus.analysis import impact as impact_mod
from campus.analysis import power_chain as power_chain_mod
from campus.analysis import redundancy as redundancy_mod
from campus.analysis import redundancy_levels as levels_mod
from campus.analysis import stranded as stranded_mod
from campus.analysis.cooling import pools_failing_redundancy
from campus.analysis.weather import reference_year, weather_of
from campus.state import CampusState, campus_state, campus_summary


def impact(state: CampusState, elements: list[tuple[str, int]]) -> dict:
    """Impact of failing every ``(kind, id)`` at once (one element: a single failure)."""
    return state.memo(
        ("impact", tuple(elements)), lambda: impact_mod.impact(state.snap, failed=elements).as_dict()
    )


def redundancy(state: CampusState, include_single_points: bool) -> list[dict]:
    return state.memo(
        ("redundancy", include_single_points),
        lambda: [f.as_dict() for f in redundancy_mod.redundancy_check(state.snap, include_single_points)],
    )


def redundancy_levels(state: CampusState) -> list[dict]:
    """The level each domain achieves, N, N+1 or 2N (``redundancy_levels``), per chain."""
    return state.memo(
        ("redundancy_levels",),
        lambda: [lv.as_dict() for lv in levels_mod.redundancy_levels(state.snap).values()],
    )


def unfed_racks(state: CampusState) -> list[dict]:
    """The racks with a load and no power feed (``redundancy.unfed_racks``)."""
    return state.memo(("unfed_racks",), lambda: redundancy_mod.unfed_racks(state.snap))


def redundancy_declared(state: CampusState) -> list[dict]:
    """The declared redundancy of the campus against the single points found and the cooling pools short
    of it (``cooling.pools_failing_redundancy``, the summary's ``groups_failing_redundancy``), checked by
    ``redundancy.redundancy_declaration_checks``."""

    def compute():
        points: dict[str, list[str]] = {"power": [], "cooling": []}
        for f in redundancy(state, True):
            points[redundancy_mod.DOMAIN_OF_KIND[f["device_kind"]]].append(f["device_name"])
        pools = {"cooling": [p.as_dict() for p in pools_failing_redundancy(state.snap)]}
        return redundancy_mod.snapshot_declaration_checks(state.snap, points, pools)

    return state.memo(("redundancy_declared",), compute)


def stranded(state: CampusState, include_racks: bool) -> dict:
    """Stranded capacity on the state's load basis (``state.basis``: design, or ``measured.measured_state``)."""

    def compute():
        result = stranded_mod.stranded_capacity(state.snap)
        body = {**state.basis, **result.as_dict()}
        if include_racks:
            body["racks"] = [row.as_dict() for row in result.racks.values()]
        return body

    return state.memo(("stranded", include_racks), compute)


def power_chain(state: CampusState, rack_id: int) -> dict:
    """The rack's power chain on the state's load basis (``state.basis``)."""
    if not any(r.id == rack_id for r in state.snap.racks):
        raise ValueError(f"rack: no rack {rack_id} in this campus")
    return state.memo(
        ("power_chain", rack_id),
        lambda: {**state.basis, **power_chain_mod.power_chain(state.snap, rack_id, state.rollup())},
    )


# decimals kept per hourly series of the facility year (0.01 °C, 0.1 kW, 1e-4 of PUE, 0.1 L)
_FACILITY_DECIMALS = {
    "dry_bulb_c": 2,
    "wet_bulb_c": 2,
    "it_mw": 4,
    "facility_mw": 4,
    "pue": 4,
    "water_l": 1,
    "cooling_margin_mw": 4,
}


def facility_year(state: CampusState, gpu_power_fraction: float = 1.0, climate: str | None = None) -> dict:
    """The campus's plant in its weather (or a shipped ``climate``'s reference year), hour by hour."""

    def compute():
        snap = state.snap
        if climate is None:
            year = facility.campus_facility_year(snap, gpu_power_fraction)
            weather = weather_of(snap)
        else:
            weather = reference_year(climate)
            year = facility.facility_year(snap, weather.dry_bulb_c, weather.wet_bulb_c, gpu_power_fraction)
        if climate is None:  # the campus's own year, which the summary integrates; a climate asks the plant
            year = facility.with_typed_pue(year, snap)
        body: dict[str, Any] = {
            "climate": weather.climate,
            "weather_source": weather.source,
            "pue_source": (
                facility.campus_pue(snap, None, gpu_power_fraction).source
                if climate is None
                else facility.PLANT_MODEL
            ),
        }
        for name, decimals in _FACILITY_DECIMALS.items():
            values = getattr(year, name).round(decimals)
            body[name] = [v if v == v else None for v in values.tolist()]  # NaN (no IT) -> null
        body["annual"] = summary.finite_json(year.annual())
        if climate is None:  # the design hours belong to the campus's own site
            body["design"] = summary.finite_json(facility.design_facility(snap, gpu_power_fraction).as_dict())
        return body

    return state.memo(("facility_year", gpu_power_fraction, climate), compute)


# ---------------------------------------------------------------- phases


_DATED_MODELS: tuple[tuple[type, str], ...] = (
    (models.UtilityFeed, "campus_id"),
    (models.Building, "campus_id"),
    (models.DataHall, "building__campus_id"),
    (models.Row, "hall__building__campus_id"),
    (models.Rack, "campus_id"),
    (models.Node, "rack__campus_id"),
    (models.PowerDevice, "campus_id"),
    (models.PowerFeed, "campus_id"),
    (models.CoolingPlant, "campus_id"),
    (models.CoolingUnit, "campus_id"),
    (models.Pod, "campus_id"),
    (models.Switch, "campus_id"),
    (models.Link, "campus_id"),
)


def change_dates(campus_id: int) -> list[date]:
    """Every day an object of the campus enters or leaves service, sorted (one query per table)."""
    days: set[date] = set()
    for model, scope in _DATED_MODELS:
        for field_name in ("in_service_date", "retire_date"):
            days.update(
                model.objects.filter(**{scope: campus_id})
                .exclude(**{f"{field_name}__isnull": True})
                .values_list(field_name, flat=True)
                .distinct()
            )
    return sorted(days)


def timeline_point(state: CampusState) -> dict:
    """The campus's headline figures on its ``as_of`` day: GPUs, IT and facility power, and the power
    headroom after the worst single failure (the summary's ``headroom_after_failover_mw``)."""
    body = campus_summary(state)
    return {
        "date": state.as_of.isoformat(),
        "gpus": body["inventory"]["gpus"],
        "it_mw": body["power"]["it_mw"],
        "facility_mw": body["power"]["facility_mw"],
        "headroom_mw": body["power"]["headroom_after_failover_mw"],
    }


def has_undated(campus_id: int) -> bool:
    """Whether any object of the campus has no in-service date (in service since before any change)."""
    return any(
        model.objects.filter(**{scope: campus_id, "in_service_date__isnull": True}).exists()
        for model, scope in _DATED_MODELS
    )


def timeline(campus: models.Campus, as_of: date | None = None) -> dict:
    """The figures at each day something enters or leaves service, and on ``as_of`` (default today).

    When something stood before the first change (objects without an in-service date, say, with racks
    retired later), the day before that change comes first, with the state that held until then; a
    campus that starts from nothing (every object dated) starts at its first change."""
    current = campus_state(campus, as_of)

    def compute():
        changes = change_dates(campus.pk)
        days = sorted(set(changes) | {current.as_of})
        points = [
            timeline_point(current if day == current.as_of else campus_state(campus, day, keep=False))
            for day in days
        ]
        if changes and current.as_of >= changes[0] and has_undated(campus.pk):
            before = timeline_point(campus_state(campus, changes[0] - timedelta(days=1), keep=False))
            if before["gpus"] or before["it_mw"] or before["headroom_mw"] is not None:
                points.insert(0, before)
        return {"points": points}

    return current.memo(("timeline",), compute)
