"""Expansion proposals: the cheapest additions that make a placement request fit (docs/placement.md).

Pure. Per candidate hall the placement is run for that hall alone; while it fails, the check it fails is
lifted by the fewest additions of the kind that lifts it (``growth.lift``: leaves, spines and their optics;
cooling units or plant modules; power device modules, utility feed and grid capacity), written into the
snapshot (``growth.apply_additions``), and the placement run again, until the request fits or a check fails
that no addition lifts (floor space, rack density). What already stands is used first, the generator's
planning margin included: only the shortfall beyond it is added. The proposal is the hall whose additions
cost least (then the shortest time to power), with the placement option on the grown campus.

Prices: ``_price`` reads every one from the price catalog (``capex.unit_price``) with the campus's overrides
(``Campus.price_overrides``) and counts what an addition builds as the bill of materials (``bom``) counts
it: a switch per box of its model; the cables up from new switches with one optical module per switch
end (by reach class and rate) and their fibre by length, or copper per cable; cooling units, plant
modules and power device modules per kW of their kind; a utility feed's and the grid connection's kW at
``utility-feed/utility-feed``; a new row at ``building/row``. So the proposal's capex is the bill of
materials' growth from the additions, but for rows and the grid connection, which the bill of materials
does not list (its racks are priced, not their rows; the grid connection is the utility's). Time to power:
the longest lead time among the additions (``catalog_data.LEAD_TIMES_WEEKS``), in days; null when no
addition has one in the catalog (switches and optics).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace

from campus import catalog_data as cat
from campus.analysis.bom import cables_usd
from campus.analysis.capex import snapshot_overrides, unit_price
from campus.analysis.placement import PlacementRequest, RowGeo, place_with_failure
from campus.analysis.placement.growth import SWITCH_TIERS, apply_additions, fail_of_short, lift
from campus.analysis.placement.request import CONSTRAINTS, _Fail
from campus.analysis.snapshot import CampusSnapshot

MAX_STEPS = 100  # lifts per hall before the proposal gives up on it
MAX_HALLS = 2  # halls grown: those that came closest (every hall when there are no more)


def _price(snap: CampusSnapshot, add: dict, overrides: Mapping[str, float]) -> float:
    """USD for an addition, at the price catalog's rows with the campus's overrides, counted as the bill of
    materials counts what the addition builds (module doc)."""
    kind, n = add["kind"], add["count"]
    kw = n * (add.get("capacity_kw") or 0.0)
    if add["category"] == "network" and kind in SWITCH_TIERS:
        return n * unit_price("switch", add["model"], overrides).unit_price_usd
    if kind == "optic":
        ids = {s.name: s.id for s in snap.switches}
        a, b = ids.get(add["target"]), ids.get(add["to"])
        link = min((x for x in snap.links if x.a_switch_id == a and x.b_switch_id == b), key=lambda x: x.id)
        return cables_usd(snap, link.medium, link.speed_gbps, link.length_m, n, 2, overrides)
    if kind == "row":
        return n * unit_price("building", "row", overrides).unit_price_usd
    if kind in ("grid", "utility_feed"):
        return kw * unit_price("utility-feed", "utility-feed", overrides).unit_price_usd
    if add["category"] == "cooling":
        price_kind = "cooling-unit" if add["names"] else "cooling-plant"
        return kw * unit_price(price_kind, kind, overrides).unit_price_usd
    return kw * unit_price("power-device", kind, overrides).unit_price_usd


def _lead_days(kind: str) -> int | None:
    key = cat.LEAD_TIME_KIND.get(kind, kind)
    row = cat.LEAD_TIMES_WEEKS.get(key)
    return None if row is None else int(round(row["weeks"] * 7))


def _priced(snap: CampusSnapshot, add: dict) -> dict:
    usd = _price(snap, add, snapshot_overrides(snap))
    return {**add, "capex_usd": round(usd, 2), "lead_time_days": _lead_days(add["kind"])}


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


def _rows_added(snap: CampusSnapshot, option: dict) -> list[dict]:
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
    return [_priced(snap, add)]


Progress = Callable[[float, str], None]  # (share of the proposal done 0-1, what it is at)


def _grow(
    snap: CampusSnapshot,
    request: PlacementRequest,
    rack_size: Mapping[int, tuple[float, float]] | None,
    rows: Mapping[int, list[RowGeo]] | None,
    report: Callable[[int], None] | None = None,
) -> tuple[list[dict], dict | None, _Fail | None]:
    """(additions, option, fail): the additions that make ``request`` (one hall) fit and the option placed
    on the grown campus; option None with the check no addition lifts. ``report(round)`` before each
    placement on the grown campus."""
    additions: list[dict] = []
    grown = snap
    fail: _Fail | None = None
    before: set | None = None
    for step_no in range(MAX_STEPS):
        if report is not None:
            report(step_no)
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
        step = [_priced(grown, a) for a in step]
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
    progress: Progress | None = None,
) -> dict:
    """The cheapest additions that make ``request`` fit (module doc): ``{"feasible", "hall", "hall_id",
    "building", "building_id", "additions", "capex_usd", "time_to_power_days", "option", "detail"}``;
    ``feasible`` false when no hall can be grown to fit (``detail`` says what no addition lifts).
    ``progress(share, stage)``, when given, hears where the proposal is (a background job reports it)."""
    say: Progress = progress if progress is not None else (lambda share, stage: None)
    halls = [h for h in snap.halls if request.hall_id in (None, h.id)]
    if not halls:
        raise ValueError(f"hall: no hall {request.hall_id} in this campus")
    # a fifth of the work ranking the halls when there are more than MAX_HALLS, the rest growing them
    share_ranked = 0.2 if len(halls) > MAX_HALLS else 0.0
    if len(halls) > MAX_HALLS:
        halls = _closest(snap, request, halls, rack_size, rows, say, share_ranked)
    best: dict | None = None
    closest: _Fail | None = None
    for n, hall in enumerate(halls):
        share = share_ranked + (1.0 - share_ranked) * n / len(halls)

        def report(step_no: int, hall=hall, share=share) -> None:
            # the rounds of a hall are not known before they run: each takes half of what is left
            part = (1.0 - share_ranked) / len(halls) * (1.0 - 0.5**step_no)
            say(share + part, f"growing hall {hall.name}: round {step_no + 1}")

        additions, option, fail = _grow(snap, replace(request, hall_id=hall.id), rack_size, rows, report)
        if option is None:
            if fail is not None and (closest is None or _rank(fail) > _rank(closest)):
                closest = fail.located(snap, hall)
            continue
        additions = _merge(additions) + _rows_added(snap, option)
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
    say(1.0, "proposed")
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


def _closest(snap, request, halls, rack_size, rows, say: Progress, share: float) -> list:
    """The ``MAX_HALLS`` halls whose placement came closest (most checks passed, then smallest shortfall)."""
    scored = []
    for n, hall in enumerate(halls):
        say(share * n / len(halls), f"ranking hall {hall.name}")
        result, fail = place_with_failure(snap, replace(request, hall_id=hall.id), rack_size, rows)
        score = (len(CONSTRAINTS), math.inf) if result["feasible"] or fail is None else _rank(fail)
        scored.append((score, -hall.id, hall))
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [h for _, _, h in scored[:MAX_HALLS]]
