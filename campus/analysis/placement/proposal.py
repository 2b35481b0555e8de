"""Expansion proposals: the cheapest additions that make a placement request fit (docs/placement.md).

Pure. Per candidate hall the placement is run for that hall alone; while it fails, the check it fails is
lifted by the fewest additions of the kind that lifts it (``growth.lift``: leaves, spines and their optics;
cooling units or plant modules; power device modules, utility feed and grid capacity), written into the
snapshot (``growth.apply_additions``), and the placement run again, until the request fits or a check fails
that no addition lifts (rack density). When floor space runs out in every hall, new space like one hall
(a hall in its building, or a new building: ``expansion``) is grown the same way, the cheaper taken. What
already stands is used first, the generator's planning margin included: only the shortfall beyond it is
added. The proposal is the hall whose additions
cost least (then the shortest time to power), with the placement option on the grown campus.

Prices: ``_price`` reads every one from the price catalog (``capex.unit_price``) with the campus's overrides
(``Campus.price_overrides``) and counts what an addition builds as the bill of materials (``bom``) counts
it: a switch per box of its model; the cables up from new switches with one optical module per switch
end (by reach class and rate) and their fibre by length, or copper per cable; cooling units, plant
modules and power device modules per kW of their kind; a utility feed's and the grid connection's kW at
``utility-feed/utility-feed``; a new row at ``building/row``. So the proposal's capex is the bill of
materials' growth from the additions, but for rows, which the bill of materials does not list (its racks
are priced, not their rows), and a raise of the campus's grid capacity, which is no inventory item (a new
utility feed is: its grid-connection line). Time to power:
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
from campus.analysis.placement.expansion import hall_fits, space_lines
from campus.analysis.placement.growth import SWITCH_TIERS, apply_additions, fail_of_short, lift
from campus.analysis.placement.positions import free_positions
from campus.analysis.placement.request import CONSTRAINTS, DEFAULT_RACK_SIZE_M, _Fail
from campus.analysis.snapshot import CampusSnapshot

MAX_STEPS = 100  # lifts per hall before the proposal gives up on it
MAX_HALLS = 2  # halls grown: those that came closest (every hall when there are no more)
MAX_HALL_LENGTHS = 8  # a new hall is at most this many times its template's length


def _price(snap: CampusSnapshot, add: dict, overrides: Mapping[str, float]) -> float:
    """USD for an addition, at the price catalog's rows with the campus's overrides, counted as the bill of
    materials counts what the addition builds (module doc)."""
    kind, n = add["kind"], add["count"]
    kw = n * (add.get("capacity_kw") or 0.0)
    table = (add.get("clone") or {}).get("table")
    if table == "building":
        return add["clone"]["area_m2"] * unit_price("building", "shell", overrides).unit_price_usd
    if table == "hall":
        if add["clone"]["in_new_building"]:
            return 0.0  # the building's shell price includes its white space
        return add["clone"]["area_m2"] * unit_price("building", "hall", overrides).unit_price_usd
    if table == "storage":
        return add["clone"]["energy_kwh"] * unit_price("energy-storage", "bess", overrides).unit_price_usd
    if table == "pod":
        return 0.0  # a name for its switches: they are priced on their own lines
    if table == "link":
        c = add["clone"]
        return cables_usd(snap, c["medium"], c["speed_gbps"], c["length_m"], n, 2, overrides)
    if table == "plant":
        return kw * unit_price("cooling-plant", kind, overrides).unit_price_usd
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
    if kind == "pod":
        return None
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
        if add.get("clone"):
            out[(id(add),)] = dict(add)  # new space: one line per element built
            continue
        key = (add["kind"], add["model"], add["target"], add["to"], add["hall_id"], add["building_id"])
        if key in out:
            line = out[key]
            line["count"] += add["count"]
            line["names"] = line["names"] + add["names"]
            if "positions" in line or "positions" in add:
                line["positions"] = line.get("positions", []) + add.get("positions", [])
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


def _uplinks_added(snap: CampusSnapshot, option: dict) -> list[dict]:
    """The cables up from the leaves taking the racks that the spine-port check counts (the option's
    ``uplinks``), as ``optic`` additions priced as the bill of materials prices them. Written into a branch
    with the racks (``placement_branch``), so ``with_racks``: not built with the other additions."""
    overrides = snapshot_overrides(snap)
    where = {k: option[k] for k in ("building", "building_id", "hall", "hall_id")}
    out = []
    for up in option.get("uplinks", ()):
        usd = cables_usd(snap, up["medium"], up["speed_gbps"], up["length_m"], up["count"], 2, overrides)
        out.append(
            {
                "kind": "optic",
                "model": up["medium"],
                "count": up["count"],
                "capacity_kw": None,
                **where,
                "row": None,
                "target": up["switch"],
                "to": up["to"],
                "names": [],
                "reason": "spine_ports",
                "category": "network",
                "with_racks": True,
                "capex_usd": round(usd, 2),
                "lead_time_days": _lead_days("optic"),
            }
        )
    return out


Progress = Callable[[float, str], None]  # (share of the proposal done 0-1, what it is at)


def _grow(
    snap: CampusSnapshot,
    request: PlacementRequest,
    rack_size: Mapping[int, tuple[float, float]] | None,
    rows: Mapping[int, list[RowGeo]] | None,
    before: set | None = None,
    stop=None,
    report: Callable[[int], None] | None = None,
) -> tuple[list[dict], dict | None, _Fail | None]:
    """(additions, option, fail): the additions that make ``request`` (one hall) fit and the option placed
    on the grown campus; option None with the check no addition lifts. ``before``: what was short at design
    before any addition (default: on ``snap``); ``stop(fail)``: words when ``fail`` is not to be lifted
    here (a new hall's building whose feed has no headroom), else None. ``report(round)`` before each
    placement on the grown campus."""
    additions: list[dict] = []
    grown = snap
    fail: _Fail | None = None
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
            # one after the other: two may grow the same element (new units' names must not repeat)
            step, ahead = [], grown
            for f in fails:
                one = lift(ahead, f)
                if one:
                    step += one
                    ahead = apply_additions(ahead, one)
            fail = fails[0] if fails else None
        elif result["feasible"]:
            return additions, result["options"][0], None
        else:
            step = lift(grown, fail) if fail is not None else None
        if not step:
            return additions, None, fail
        why = next((w for w in (stop(f) for f in (fails if new else [fail])) if w), None) if stop else None
        if why:
            fail.detail = f"{why}: {fail.detail}"
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


def _cheaper(best: dict | None, additions: list[dict], option: dict, tie: int | bool) -> dict | None:
    """The proposal of ``additions`` for ``option`` when it costs less than ``best`` (then powers sooner, then
    ranks first by ``tie``), else ``best``; its ``_key`` is the ranking."""
    capex, days = _summary(additions)
    key = (capex, days if days is not None else -1, tie)
    if best is not None and not key < best["_key"]:
        return best
    return {
        "_key": key,
        "feasible": True,
        **{k: option[k] for k in ("hall", "hall_id", "building", "building_id")},
        "additions": additions,
        "capex_usd": capex,
        "time_to_power_days": days,
        "option": option,
        "detail": "",
    }


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

        additions, option, fail = _grow(
            snap, replace(request, hall_id=hall.id), rack_size, rows, report=report
        )
        if option is None:
            if fail is not None and (closest is None or _rank(fail) > _rank(closest)):
                closest = fail.located(snap, hall)
            continue
        additions = _merge(additions) + _rows_added(snap, option) + _uplinks_added(snap, option)
        best = _cheaper(best, additions, option, hall.id)
    if (
        best is None
        and request.hall_id is None
        and closest is not None
        and closest.constraint == "floor_space"
    ):
        # floor space runs out in every hall: new space like the hall that came closest
        say(0.99, "laying out new space")
        best, space_fail = _new_space(snap, request, rack_size, rows, halls)
        if space_fail is not None:
            closest = space_fail
    say(1.0, "proposed")
    if best is not None:
        best.pop("_key", None)
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


def _template(snap: CampusSnapshot, request: PlacementRequest, halls: list):
    """The hall new space is laid out like: one holding racks of the requested model, else the largest."""
    holding = {r.hall_id for r in snap.racks if any(slug == request.node_model for slug, _ in r.nodes)}
    return max(halls, key=lambda h: (h.id in holding, h.width_m * h.length_m, -h.id))


def _new_space(snap, request, rack_size, rows, halls) -> tuple[dict | None, _Fail | None]:
    """The cheaper of a new hall in the template's building (when its floor holds one and its utility feed
    and substation take the load) and a new building like the template's (``expansion``), grown until the
    request fits there; (proposal, None) or (None, what no addition lifts)."""
    template = _template(snap, request, halls)
    before = {_short_key(s) for s in place_with_failure(snap, request, rack_size, rows)[0]["short_at_design"]}
    length = _hall_length(template, request.racks)
    choices = [True]
    if hall_fits(snap, template.building_id, template.width_m, length):
        choices.insert(0, False)
    best: dict | None = None
    closest: _Fail | None = None
    for new_building in choices:
        # a longer hall when the one sized for the racks alone has no room left for them (the cooling units
        # standing in it and those added take floor too)
        for k in range(round(length / template.length_m), MAX_HALL_LENGTHS + 1):
            size = template.length_m * k
            if not new_building and not hall_fits(snap, template.building_id, template.width_m, size):
                break
            lines = [_priced(snap, a) for a in space_lines(snap, template, new_building, size)]
            grown = apply_additions(snap, lines)
            spot = next(a for a in lines if a["kind"] == "hall")
            bid = next(b.id for b in grown.buildings if b.name == spot["building"])
            hall = next(h for h in grown.halls if h.name == spot["names"][0] and h.building_id == bid)
            stop = None if new_building else _feed_has_no_headroom
            additions, option, fail = _grow(
                grown, replace(request, hall_id=hall.id), rack_size, rows, before, stop
            )
            if option is not None or fail is None or fail.constraint != "floor_space":
                break
        if option is None:
            if fail is not None and (closest is None or _rank(fail) > _rank(closest)):
                closest = fail
            continue
        old_b, old_h = {b.id for b in snap.buildings}, {h.id for h in snap.halls}
        extra = _rows_added(snap, option) + _uplinks_added(snap, option)
        additions = [_unnew(a, old_b, old_h) for a in lines + _merge(additions) + extra]
        option = _unnew(option, old_b, old_h)
        best = _cheaper(best, additions, option, new_building)
    if best is not None:
        return best, None
    return None, closest


def _hall_length(template, racks: int) -> float:
    """The template hall's length, or as many times it as an empty hall of its width needs to hold ``racks``
    (``MAX_HALL_LENGTHS`` at most), m."""
    for k in range(1, MAX_HALL_LENGTHS + 1):
        length = template.length_m * k
        if len(free_positions(template.width_m, length, [], DEFAULT_RACK_SIZE_M, racks)) >= racks:
            return length
    return template.length_m * MAX_HALL_LENGTHS


def _feed_has_no_headroom(fail: _Fail) -> str | None:
    if fail.constraint == "power" and fail.level in ("utility", "substation"):
        return "the building's utility feed or substation has no headroom (a new building instead)"
    return None


def _unnew(item: dict, buildings: set[int], halls: set[int]) -> dict:
    """``item`` with the ids of a new building or hall (the grown snapshot's own) left null."""
    out = dict(item)
    if out.get("building_id") is not None and out["building_id"] not in buildings:
        out["building_id"] = None
    if out.get("hall_id") is not None and out["hall_id"] not in halls:
        out["hall_id"] = None
    return out
