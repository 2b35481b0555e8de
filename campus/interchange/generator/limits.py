"""The building and hall IT limits, held for the IT the design ends up with, or refused by name.

``lay_out`` packs servers against a budget (the limit less the rest of ``other_it_fraction``), but a hall's
IT is what ``cooling.hall_heat`` counts: its servers, the network standing in it (its leaves; a pod's spine
and core in the pod's first hall; the super-spine in the campus's first hall) and its share of other IT.
So the layout is checked against the limits after the fabric is placed, and packed again with a smaller
budget until every hall and building is within its limit. Where the unit that cannot be split does not
fit (a pod in a building, unless ``island_spans_buildings`` lets it continue in the next; one rack with
the switches beside it in a hall),
the generator refuses, naming the parameter and the smallest value the design takes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from campus.interchange.generator.builder import Builder
from campus.interchange.generator.common import GeneratorError
from campus.interchange.generator.cooling import HallHeat, hall_heat
from campus.interchange.generator.fabric import build_fabric
from campus.interchange.generator.layout import lay_out
from campus.interchange.generator.plan import PodPlan

# Packing again removes at least one rack from the hall (or pod from the building) that was over its
# limit, so this many rounds are far more than any design needs.
MAX_FITS = 60


def _placed(
    new_builder: Callable[[], Builder],
    pods: Sequence[PodPlan],
    building_budget_kw: float | Sequence[float],
    hall_budget_kw: float,
    phased: bool,
) -> tuple[Builder, list[list[HallHeat]]]:
    b = new_builder()
    lay_out(b, list(pods), building_budget_kw, hall_budget_kw, phased=phased)
    build_fabric(b)
    return b, hall_heat(b)


def _racks(b: Builder, bi: int, hi: int) -> int:
    return sum(len(members) for _, members in b.layout[bi][hi])


def _racks_in(b: Builder, bi: int) -> int:
    return sum(_racks(b, bi, hi) for hi in range(len(b.layout[bi])))


def _pods_in(b: Builder, bi: int) -> int:
    return sum(1 for x in b.pod_building if x == bi)


def _per_entry(building_max_kw: float | Sequence[float], pods: Sequence[PodPlan]) -> list[float]:
    """The building limit of each mix entry (phase): one for all, or the phases' own."""
    if isinstance(building_max_kw, (int, float)):
        return [float(building_max_kw)] * (max(p.entry for p in pods) + 1)
    return [float(x) for x in building_max_kw]


def _fit(
    new_builder: Callable[[], Builder],
    pods: Sequence[PodPlan],
    building_max_kw: float | Sequence[float],
    hall_max_kw: float,
    phased: bool,
) -> tuple[Builder, list[list[HallHeat]]] | tuple[str, float, int]:
    """A layout within both limits, or (the limit that cannot be held, the IT of the unit over it, the
    mix entry or phase of the building over its limit)."""
    share = 1.0 - new_builder().other_it_fraction
    limits = _per_entry(building_max_kw, pods)
    budgets, hall_budget = [x * share for x in limits], hall_max_kw * share
    for _ in range(MAX_FITS):
        b, heat = _placed(new_builder, pods, budgets, hall_budget, phased)
        entry_of = {bi: pod.entry for pod, spans in zip(pods, b.pod_spans, strict=True) for bi in spans}
        halls = [(h.it_kw, h.servers_kw, bi, hi) for bi, hs in enumerate(heat) for hi, h in enumerate(hs)]
        blds = [
            (
                sum(h.it_kw for h in hs) - limits[entry_of[bi]],
                sum(h.it_kw for h in hs),
                sum(h.servers_kw for h in hs),
                bi,
            )
            for bi, hs in enumerate(heat)
        ]
        b_over, b_it, b_servers, b_worst = max(blds)
        h_it, h_servers, h_bi, h_hi = max(halls)
        h_over = h_it - hall_max_kw
        if b_over <= 0 and h_over <= 0:
            return b, heat
        if b_over > 0:
            entry = entry_of[b_worst]
            if (_racks_in(b, b_worst) if b.span_buildings else _pods_in(b, b_worst)) <= 1:
                return BUILDING, b_it, entry
            # The building's servers less what it is over: it gives up at least one pod.
            budgets[entry] = min(budgets[entry], b_servers - b_over - 1e-6)
        if h_over > 0:
            if _racks(b, h_bi, h_hi) <= 1:
                return HALL, h_it, 0
            hall_budget = min(hall_budget, h_servers - h_over - 1e-6)
    return HALL, hall_max_kw, 0


BUILDING, HALL = "building_max_it_mw", "hall_max_it_mw"
STEP_KW = 10.0  # the smallest feasible limit is searched to 0.01 MW
MAX_SEARCH = 12


def fit_layout(
    new_builder: Callable[[], Builder],
    pods: Sequence[PodPlan],
    building_max_kw: float,
    hall_max_kw: float,
    phased: bool = False,
    phase_building_kw: Sequence[float] | None = None,
) -> tuple[Builder, list[list[HallHeat]]]:
    """The laid-out builder (fabric placed) and its halls' heat, every hall's IT at most ``hall_max_kw`` and
    every building's at most ``building_max_kw`` (``phase_building_kw``: each phase's own limit);
    ``GeneratorError`` naming the limit and the smallest value (to 0.01 MW) that takes the design
    otherwise (a phase's own limit: named as ``phases[i].building_max_it_mw``, without the search)."""
    out = _fit(new_builder, pods, phase_building_kw or building_max_kw, hall_max_kw, phased)
    if isinstance(out[0], Builder):
        return out  # type: ignore[return-value]
    if phase_building_kw is not None and out[0] == BUILDING:
        entry = out[2]  # type: ignore[misc]
        raise GeneratorError(
            f"phases[{entry}].building_max_it_mw",
            f"{phase_building_kw[entry] / 1000.0:g} MW is below the IT of one compute island of the phase "
            "with its network and share of other IT (or set island_spans_buildings)",
        )
    # The hall is the fault to name first when no building limit mends it; then the building, with the
    # hall limit as given.
    alone = _fit(new_builder, pods, math.inf, hall_max_kw, phased)
    field = BUILDING if isinstance(alone[0], Builder) else HALL
    over_kw = out[1] if field == out[0] else 0.0
    limit = building_max_kw if field == BUILDING else hall_max_kw

    def fits(value_kw: float) -> bool:
        if field == BUILDING:
            return isinstance(_fit(new_builder, pods, value_kw, hall_max_kw, phased)[0], Builder)
        return isinstance(_fit(new_builder, pods, math.inf, value_kw, phased)[0], Builder)

    # A first guess: one pod per building, or one rack per hall, at its largest; doubled until it takes
    # the design (more halls bring more leaf switches, and with them more spines), then halved down.
    if field == BUILDING:
        _, heat = _placed(new_builder, pods, 0.0, hall_max_kw, phased)
        one = max(sum(h.it_kw for h in hs) for hs in heat)
    else:
        _, heat = _placed(new_builder, pods, math.inf, 0.0, phased)
        one = max(h.it_kw for hs in heat for h in hs)
    lo = math.floor(limit / STEP_KW)
    hi = max(lo + 1, math.ceil(max(one, over_kw) / STEP_KW))
    for _ in range(MAX_SEARCH):
        if fits(hi * STEP_KW):
            break
        lo, hi = hi, 2 * hi
    for _ in range(MAX_SEARCH):
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        if fits(mid * STEP_KW):
            hi = mid
        else:
            lo = mid
    need = f"{hi * STEP_KW / 1000.0:g} MW"
    if field == BUILDING:
        largest = max(sum(r.gpus for r in p.racks) for p in pods)
        raise GeneratorError(
            field,
            f"{limit / 1000.0:g} MW is below the IT of one compute island (up to {largest:,} GPUs with its "
            f"network and share of other IT), which spans buildings only with island_spans_buildings; the "
            f"smallest that takes the design: {need} (or a smaller pod_max_gpus)",
        )
    if building_max_kw < hi * STEP_KW:
        need += ", with building_max_it_mw at least as large"
    raise GeneratorError(
        field,
        f"{limit / 1000.0:g} MW cannot hold a rack with the switches that stand beside it (an island's spine "
        f"and core stand in its first hall); the smallest that takes the design: {need}",
    )
