"""Expansion proposals: the cheapest additions that make a placement request fit (docs/placement.md).

Pure. Per candidate hall the placement is run for that hall alone; while it fails, the check it fails is
lifted by the fewest additions of the kind that lifts it (``growth.lift``: leaves, spines and their optics;
cooling units or plant modules; power device modules, utility feed and grid capacity), written into the
snapshot (``growth.apply_additions``), and the placement run again, until the request fits or a check fails
that no addition lifts (floor space, rack density). What already stands is used first, the generator's
planning margin included: only the shortfall beyond it is added. The proposal is the hall whose additions
cost least (then the shortest time to power), with the placement option on the grown campus.

Prices: ``_price`` (USD per unit): power devices and cooling at ``capex.UNIT_COST_USD_PER_KW`` times the
unit's kW; switches, cables and rows from ``catalog_data.EXPANSION_PRICES_USD`` (estimates). Time to power:
the longest lead time among the additions (``catalog_data.LEAD_TIMES_WEEKS``), in days; null when no
addition has one in the catalog (switches and optics).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from campus import catalog_data as cat
from campus.analysis.capex import OTHER_USD_PER_KW, UNIT_COST_USD_PER_KW
from campus.analysis.placement import PlacementRequest, RowGeo, place_with_failure
from campus.analysis.placement.growth import SWITCH_TIERS, apply_additions, fail_of_short, lift
from campus.analysis.placement.request import CONSTRAINTS, _Fail
from campus.analysis.snapshot import CampusSnapshot

MAX_STEPS = 100  # lifts per hall before the proposal gives up on it
MAX_HALLS = 2  # halls grown: those that came closest (every hall when there are no more)
_ETHERNET = ("spectrum", "tomahawk", "roce")


def _price(kind: str, model: str, capacity_kw: float | None = None) -> float:
    """USD for one unit of an addition (module doc)."""
    prices = cat.EXPANSION_PRICES_USD
    if kind in SWITCH_TIERS:
        row = next((r for r in cat.SWITCH_MODELS if r["slug"] == model), None)
        radix = row["radix"] if row is not None else 64
        ethernet = row is not None and any(w in row["fabric"] for w in _ETHERNET)
        per_port = prices["switch_port_ethernet" if ethernet else "switch_port"]["usd"]
        return float(radix * per_port)
    if kind == "optic":
        medium = next((r for r in cat.LINK_MEDIA if r["slug"] == model), None)
        relative = medium["relative_cost"] if medium is not None else 1.0
        return float(relative * prices["optic_sr_link"]["usd"])
    if kind == "row":
        return float(prices["row"]["usd"])
    cost_kind = "substation" if kind in ("grid", "utility_feed") else kind
    return float((capacity_kw or 0.0) * UNIT_COST_USD_PER_KW.get(cost_kind, OTHER_USD_PER_KW))


def _lead_days(kind: str) -> int | None:
    key = cat.LEAD_TIME_KIND.get(kind, kind)
    row = cat.LEAD_TIMES_WEEKS.get(key)
    return None if row is None else int(round(row["weeks"] * 7))


def _priced(add: dict) -> dict:
    unit = _price(add["kind"], add["model"], add.get("capacity_kw"))
    return {**add, "capex_usd": round(unit * add["count"], 2), "lead_time_days": _lead_days(add["kind"])}


def _merge(additions: list[dict]) -> list[dict]:
    """One line per (kind, model, element grown, where): counts, names and capex summed."""
    out: dict[tuple, dict] = {}
    for add in additions:
        key = (add["kind"], add["model"], add["target"], add["to"], add["hall_id"], add["building_id"])
        if key in out:
            line = out[key]
            line["count"] += add["count"]
            line["names"] = line["names"] + add["names"]
            line["capex_usd"] = round(line["capex_usd"] + add["capex_usd"], 2)
        else:
            out[key] = dict(add)
    return list(out.values())


def _rows_added(option: dict) -> list[dict]:
    """The new row lines the option lays (racks on no recorded row), as ``row`` additions."""
    lines = sorted({r["y_m"] for r in option["racks"] if r["row"] is None})
    if not lines:
        return []
    where = {k: option[k] for k in ("building", "building_id", "hall", "hall_id")}
    add = {
        "kind": "row",
        "model": "rack row",
        "count": len(lines),
        "capacity_kw": None,
        **where,
        "row": None,
        "target": option["hall"],
        "to": None,
        "names": [],
        "reason": "space",
        "category": "building",
    }
    return [_priced(add)]


def _grow(
    snap: CampusSnapshot,
    request: PlacementRequest,
    rack_size: Mapping[int, tuple[float, float]] | None,
    rows: Mapping[int, list[RowGeo]] | None,
) -> tuple[list[dict], dict | None, _Fail | None]:
    """(additions, option, fail): the additions that make ``request`` (one hall) fit and the option placed
    on the grown campus; option None with the check no addition lifts."""
    additions: list[dict] = []
    grown = snap
    fail: _Fail | None = None
    before: set | None = None
    for _ in range(MAX_STEPS):
        result, fail = place_with_failure(grown, request, rack_size, rows)
        # what the additions themselves made short (more switches draw more beside the racks): lifted first
        shorts = {_short_key(s): s for s in result["short_at_design"]}
        if before is None:
            before = set(shorts)
        new = [s for k, s in shorts.items() if k not in before]
        if new:
            # every element the additions made short, at once (each is lifted on its own element)
            fails = [f for f in (fail_of_short(grown, s) for s in new) if f is not None]
            lifted = [lift(grown, f) for f in fails]
            step = [a for one in lifted if one for a in one]
            fail = fails[0] if fails else None
        elif result["feasible"]:
            return additions, result["options"][0], None
        else:
            step = lift(grown, fail) if fail is not None else None
        if not step:
            return additions, None, fail
        step = [_priced(a) for a in step]
        additions.extend(step)
        grown = apply_additions(grown, step)
    if fail is not None:
        fail.detail = f"still short after {MAX_STEPS} rounds of additions: {fail.detail}"
    return additions, None, fail


def _short_key(entry: dict) -> tuple:
    return (entry["constraint"], entry["level"], entry["element"], entry["building_id"])


def _summary(additions: list[dict]) -> tuple[float, int | None]:
    capex = round(sum(a["capex_usd"] for a in additions), 2)
    days = [a["lead_time_days"] for a in additions if a["lead_time_days"] is not None]
    return capex, (max(days) if days else None)


def propose(
    snap: CampusSnapshot,
    request: PlacementRequest,
    rack_size: Mapping[int, tuple[float, float]] | None = None,
    rows: Mapping[int, list[RowGeo]] | None = None,
) -> dict:
    """The cheapest additions that make ``request`` fit (module doc): ``{"feasible", "hall", "hall_id",
    "building", "building_id", "additions", "capex_usd", "time_to_power_days", "option", "detail"}``;
    ``feasible`` false when no hall can be grown to fit (``detail`` says what no addition lifts)."""
    halls = [h for h in snap.halls if request.hall_id in (None, h.id)]
    if not halls:
        raise ValueError(f"hall: no hall {request.hall_id} in this campus")
    if len(halls) > MAX_HALLS:
        halls = _closest(snap, request, halls, rack_size, rows)
    best: dict | None = None
    closest: _Fail | None = None
    for hall in halls:
        additions, option, fail = _grow(snap, replace(request, hall_id=hall.id), rack_size, rows)
        if option is None:
            if fail is not None and (closest is None or _rank(fail) > _rank(closest)):
                closest = fail.located(snap, hall)
            continue
        additions = _merge(additions) + _rows_added(option)
        capex, days = _summary(additions)
        key = (capex, days if days is not None else -1, hall.id)
        if best is None or key < best["_key"]:
            best = {
                "_key": key,
                "feasible": True,
                **{k: option[k] for k in ("hall", "hall_id", "building", "building_id")},
                "additions": additions,
                "capex_usd": capex,
                "time_to_power_days": days,
                "option": option,
                "detail": "",
            }
    if best is not None:
        best.pop("_key")
        return best
    detail = "no hall can be grown to fit"
    if closest is not None:
        detail = f"{closest.hall}: {closest.detail} ({closest.constraint}: no addition lifts it)"
    return {
        "feasible": False,
        "hall": None,
        "hall_id": None,
        "building": None,
        "building_id": None,
        "additions": [],
        "capex_usd": 0.0,
        "time_to_power_days": None,
        "option": None,
        "detail": detail,
    }


def _rank(fail: _Fail) -> tuple[int, float]:
    return (CONSTRAINTS.index(fail.constraint), fail.margin)


def _closest(snap, request, halls, rack_size, rows) -> list:
    """The ``MAX_HALLS`` halls whose placement came closest (most checks passed, then smallest shortfall)."""
    scored = []
    for hall in halls:
        result, fail = place_with_failure(snap, replace(request, hall_id=hall.id), rack_size, rows)
        score = (len(CONSTRAINTS), math.inf) if result["feasible"] or fail is None else _rank(fail)
        scored.append((score, -hall.id, hall))
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [h for _, _, h in scored[:MAX_HALLS]]
