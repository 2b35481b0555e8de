"""The redundancy level a campus achieves, N, N+1 or 2N, per domain (power, cooling), per chain and campus-wide.

The definitions (docs/model.md, "Achieved redundancy"), after the Uptime Institute Tier Standard: Topology
(concurrently maintainable: any one component may be taken out for planned maintenance without impact on
the IT; fault tolerant: any single failure without impact) and ANSI/TIA-942-B (N, N+1, 2N):

* **2N**: any one element of the domain may be out for maintenance and then any single failure of another
  still costs no GPU, and no element of the other domain out and one of this domain failed costs one (every
  pair holding an element of the domain costs no GPU that neither of its two loses alone: a CRAH failing
  while the PDU of its partners is out is a pair of both domains);
* **N+1**: any single failure costs no GPU, and some pair does;
* **N**: some single failure costs GPUs (or racks are down at design, nothing failed).

A rack counts when it holds GPUs or draws IT (a storage or network rack lost stops the jobs as surely);
the GPUs at risk are those of the racks that count.

A rack's level is the best of these its GPUs keep; a chain (the racks of a hall, for power; the racks of a
pool of cooling units that back each other up, for cooling) and the campus achieve the lowest level of
their racks. Every failure is judged by ``failures.fail``, the core of impact mode: the power cascade runs
to its end, cooling follows power, spare capacity is counted once.

The pair search (``pair_search``, one for both domains). E elements make E(E-1)/2 pairs; a 100k-GPU campus has thousands of elements, so the
search keeps only the pairs whose failures can meet. Each single failure leaves marks: the devices, feeds
and utility feeds whose liveness it flips (hard marks), the load it adds to or takes off each of them, and
the capacity it takes out of each pool of cooling units, each hall's air units and each plant loop. Two
failures whose marks share no element act apart: the chain's liveness is decided per element, loads split
linearly while no input's liveness flips, and a pool's capacity lost adds up; so the pair loses exactly
what the two lose alone. They can meet only at an element both mark where one mark is hard, or where both
add load (or take capacity) and the two together pass its limit (rating, capacity, or the pool's heat):
those pairs alone are failed together. Elements marked by nothing shared (a PDU in another hall, a unit in
another pool) are never paired. ``tests/analysis/test_redundancy_levels.py`` checks the result against
every pair failed through impact mode.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from campus.analysis.failures import FailureOutcome, _cooling_index, design_state, fail, fail_with_solve
from campus.analysis.heat import AIR_UNIT_KINDS
from campus.analysis.memo import snapshot_memo
from campus.analysis.power import power_graph
from campus.analysis.power_graph import PowerGraph
from campus.analysis.power_solve import OVERLOAD_TOLERANCE, _Outcome
from campus.analysis.snapshot import CampusSnapshot

LEVELS = ("N", "N+1", "2N")  # worst first: a level's rank is its index
RANK = {level: i for i, level in enumerate(LEVELS)}
DOMAINS = ("power", "cooling")
_HARD = None  # a mark that flips an element's liveness: meets any other mark of that element
_EPS = 1e-6  # kW: smaller load changes are rounding, not a change
MAX_LISTED = 20  # elements and pairs listed per domain, the most GPUs first

Element = tuple[str, int]  # (kind, id) as impact mode takes them
Marks = dict[tuple[str, object], float | None]


def rank(level: str) -> int:
    """0 for N, 1 for N+1, 2 for 2N; -1 for no level (not declared)."""
    return RANK.get(level, -1)


def worst(levels: Iterable[str]) -> str:
    return min(levels, key=RANK.__getitem__, default="2N")


@dataclass
class GroupLevel:
    """One chain's achieved level: the racks of a hall (power) or of a pool of cooling units (cooling)."""

    kind: str  # "hall" | "group" (named cooling group) | "hall air" (a hall's ungrouped air units) | "unit"
    id: object
    name: str
    achieved: str
    racks: int
    gpus: int
    gpus_at_risk: int  # GPUs of racks below the domain's declared level

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "id": self.id,
            "name": self.name,
            "achieved": self.achieved,
            "racks": self.racks,
            "gpus": self.gpus,
            "gpus_at_risk": self.gpus_at_risk,
        }


@dataclass
class DomainLevel:
    """A domain's achieved level, what it falls short on, and how much of the pair search it took."""

    domain: str
    declared: str
    achieved: str
    rack_level: dict[int, str]  # every rack with GPUs
    single_failures: list[dict]  # {kind, id, name, gpus_lost, racks_lost}: what makes it N
    pairs: list[dict]  # {maintenance, failure, gpus_lost, racks_lost}: what keeps it from 2N
    pairs_count: int
    elements: int
    pairs_total: int
    pairs_checked: int
    groups: list[GroupLevel] = field(default_factory=list)
    racks_down_at_design: list[int] = field(default_factory=list)

    @property
    def meets_declared(self) -> bool:
        return rank(self.achieved) >= rank(self.declared)

    def at_risk(self) -> tuple[list[int], int]:
        """(racks, GPUs) below the declared level (none when nothing is declared)."""
        want = rank(self.declared)
        racks = sorted(r for r, lv in self.rack_level.items() if RANK[lv] < want)
        return racks, self._gpus(racks)

    _gpu_count: dict[int, int] = field(default_factory=dict, repr=False)

    def _gpus(self, racks: Iterable[int]) -> int:
        return sum(self._gpu_count.get(r, 0) for r in racks)

    def as_dict(self) -> dict:
        racks, gpus = self.at_risk()
        return {
            "domain": self.domain,
            "field": f"campus.{self.domain}_redundancy",
            "declared": self.declared,
            "achieved": self.achieved,
            "meets_declared": self.meets_declared,
            "racks_at_risk": racks,
            "gpus_at_risk": gpus,
            "single_failures": self.single_failures,
            "pairs": self.pairs,
            "pairs_count": self.pairs_count,
            "elements": self.elements,
            "pairs_total": self.pairs_total,
            "pairs_checked": self.pairs_checked,
            "racks_down_at_design": self.racks_down_at_design,
            "racks_counted": len(self.rack_level),
            "groups": [gr.as_dict() for gr in self.groups],
        }


# Element kinds of each domain: a power device or utility feed belongs to the power chain (the mechanical
# boards and PDUs too: their loss is the power chain's), a cooling unit or plant to the cooling.
DOMAIN_OF_KIND = {"utility": "power", "power": "power", "cooling": "cooling", "plant": "cooling"}


def redundancy_elements(snap: CampusSnapshot) -> list[tuple[str, int, str]]:
    """(kind, id, name) of every element the check fails alone."""
    g = power_graph(snap)
    start = design_state(snap, g)
    out: list[tuple[str, int, str]] = [("utility", u.id, u.name) for u in snap.utility_feeds]
    # generators too: impact mode is the truth, and a device re-kinded ``generator`` in the middle of the
    # chain can cost GPUs; a standby generator beside the utility costs nothing alone and is not listed
    out += [("power", d, g.devices[d].name) for d in g.order if d not in start.dead]
    out += [("plant", p.id, p.name) for p in snap.cooling_plants]
    out += [("cooling", u.id, u.name) for u in snap.cooling_units]
    return out


# ---------------------------------------------------------------- marks of one failure


def _power_marks(g: PowerGraph, res: _Outcome, design: _Outcome) -> Marks:
    """What a failure's power solve changed against the design state's: liveness flips (hard) and load
    changes, kW, by ("d", device), ("f", feed) and ("u", utility feed)."""
    st, base, dst = res.state, res.base, design.state
    if st is dst:
        return {}
    marks: Marks = {}
    for d, alive in st.live.items():
        was = dst.live.get(d, base.live.get(d))
        if alive != was:
            marks[("d", d)] = _HARD
            continue
        delta = st.in_kw.get(d, 0.0) - dst.in_kw.get(d, base.in_kw.get(d, 0.0))
        if abs(delta) > _EPS:
            marks[("d", d)] = delta
    for fid, ok in st.feed_live.items():
        was = dst.feed_live.get(fid, base.feed_live.get(fid))
        if ok != was:
            marks[("f", fid)] = _HARD
            continue
        if fid in st.feed_load_kw:
            delta = st.feed_load_kw[fid] - dst.feed_load_kw.get(fid, base.feed_load_kw.get(fid, 0.0))
            if abs(delta) > _EPS:
                marks[("f", fid)] = delta
    by_utility: dict[int, float] = {}
    for d, share in st.utility_share_kw.items():
        u = g.devices[d].utility_feed_id
        if u is not None:
            was = dst.utility_share_kw.get(d, base.utility_share_kw.get(d, 0.0))
            by_utility[u] = by_utility.get(u, 0.0) + share - was
    for u, delta in by_utility.items():
        if abs(delta) > _EPS:
            marks[("u", u)] = delta
    for u in res.failed_utilities - design.failed_utilities:
        marks[("u", u)] = _HARD
    return marks


def _cooling_marks(snap: CampusSnapshot, g: PowerGraph, units: Iterable[int], plants: Iterable[int]) -> Marks:
    """The capacity the stopped units and plants take out of their pools, kW: ("pool", unit's pool),
    ("hall", hall of an air unit), ("loop", plant loop)."""
    idx = _cooling_index(snap, g)
    marks: Marks = {}

    def add(key: tuple[str, object], kw: float) -> None:
        marks[key] = (marks.get(key) or 0.0) + kw

    for u in units:
        add(("pool", idx.unit_group[u]), idx.unit_capacity_kw[u])
        if u in idx.air_unit_hall:
            add(("hall", idx.air_unit_hall[u]), idx.unit_capacity_kw[u])
    for p in plants:
        add(("loop", idx.plant_loop[p]), idx.plant_capacity_kw[p])
    return marks


def _headroom(snap: CampusSnapshot, g: PowerGraph, design: _Outcome) -> dict[tuple[str, object], float]:
    """Load each limited element (and capacity each cooling pool) can still take at design, kW; elements
    without a limit are absent (load added there never trips anything)."""
    memo = g.memo.get("redundancy_headroom")
    if memo is not None:
        return memo  # type: ignore[return-value]
    tol = 1.0 + OVERLOAD_TOLERANCE
    st, base = design.state, design.base
    room: dict[tuple[str, object], float] = {}
    for d, dev in g.devices.items():
        if dev.rated_kw > 0:
            room[("d", d)] = dev.rated_kw * tol - st.in_kw.get(d, base.in_kw.get(d, 0.0))
    for fid, f in g.feeds.items():
        if f.rating_kw > 0:
            room[("f", fid)] = f.rating_kw * tol - st.feed_load_kw.get(fid, base.feed_load_kw.get(fid, 0.0))
    for u, capacity in g.utility_capacity_kw.items():
        load = sum(
            st.utility_share_kw.get(d, base.utility_share_kw.get(d, 0.0)) for d in g.by_utility.get(u, ())
        )
        room[("u", u)] = capacity * tol - load
    idx = _cooling_index(snap, g)
    for pool, heat in idx.group_heat_kw.items():
        room[("pool", pool)] = idx.group_capacity_kw[pool] - heat
    for hall, heat in idx.hall_air_heat_kw.items():
        room[("hall", hall)] = idx.hall_air_capacity_kw[hall] - heat
    for loop, heat in idx.loop_heat_kw.items():
        room[("loop", loop)] = idx.loop_capacity_kw.get(loop, 0.0) - heat
    g.memo["redundancy_headroom"] = room
    return room


def candidate_pairs(
    marks: list[Marks], room: dict[tuple[str, object], float], keep: set[int] | None = None
) -> set[tuple[int, int]]:
    """The pairs (i < j) of failures whose marks meet: a shared element one flips, or one both load past
    its headroom. Any other pair loses what its two failures lose alone. With ``keep``, only the pairs
    holding one of those failures (a pair meets at an element one of its own marks)."""
    by_key: dict[tuple[str, object], list[tuple[int, float | None]]] = {}
    for i, m in enumerate(marks):
        for key, delta in m.items():
            by_key.setdefault(key, []).append((i, delta))
    pairs: set[tuple[int, int]] = set()
    for key, members in by_key.items():
        if len(members) < 2 or (keep is not None and not any(i in keep for i, _ in members)):
            continue
        hard = [i for i, delta in members if delta is _HARD]
        for h in hard:
            for j, _ in members:
                if j != h and (keep is None or h in keep or j in keep):
                    pairs.add((min(h, j), max(h, j)))
        limit = room.get(key)
        if limit is None:
            continue
        adds = sorted(((delta, i) for i, delta in members if delta is not _HARD and delta > 0), reverse=True)
        for a in range(len(adds)):
            da, i = adds[a]
            for b in range(a + 1, len(adds)):
                db, j = adds[b]
                if da + db <= limit + _EPS:
                    break  # sorted: every later one adds less
                if keep is None or i in keep or j in keep:
                    pairs.add((min(i, j), max(i, j)))
    return pairs


# ---------------------------------------------------------------- the levels


def _group_of_rack(snap: CampusSnapshot) -> dict[str, dict[int, tuple[str, object, str]]]:
    """Each rack's chain per domain: (kind, id, name)."""
    halls = {h.id: h for h in snap.halls}
    units = {u.id: u for u in snap.cooling_units}
    out: dict[str, dict[int, tuple[str, object, str]]] = {"power": {}, "cooling": {}}
    for r in snap.racks:
        hall = halls.get(r.hall_id)
        hall_name = hall.name if hall is not None else f"hall {r.hall_id}"
        out["power"][r.id] = ("hall", r.hall_id, hall_name)
        u = units.get(r.cooling_unit_id) if r.cooling_unit_id is not None else None
        if u is None:
            out["cooling"][r.id] = ("hall air", r.hall_id, f"{hall_name} air")
        elif u.group:
            out["cooling"][r.id] = ("group", u.group, u.group)
        elif u.hall_id is not None and u.kind in AIR_UNIT_KINDS:
            out["cooling"][r.id] = ("hall air", u.hall_id, f"{hall_name} air")
        else:
            out["cooling"][r.id] = ("unit", u.id, u.name)
    return out


def redundancy_levels(snap: CampusSnapshot, prune: bool = True) -> dict[str, DomainLevel]:
    """The achieved level of each domain (``power``, ``cooling``), its chains and racks."""
    return {domain: domain_level(snap, domain, prune) for domain in DOMAINS}


@dataclass
class PairSearch:
    """Every element of both domains failed alone, and the pairs whose marks meet: what both domains' levels
    are read from (``domain_level``), kept with the snapshot. A domain's pairs are found (``candidates``)
    and failed (``lost_together``) when it first asks for them: the cooling domain (the summary asks for
    it) looks at no pair of two power elements."""

    snap: CampusSnapshot
    elements: list[Element]  # utility feeds, power devices, plants, cooling units (``redundancy_elements``)
    names: dict[Element, str]
    lost: list[frozenset[int]]  # racks each loses alone (every rack; a domain keeps those it counts)
    cooling_marks: list[Marks]  # ``single_failures``
    room: dict[tuple[str, object], float]  # ``_headroom``
    prune: bool
    rep: list[int]  # the element each fails as in every pair (``series_representatives``)
    solved: dict[tuple[int, int], frozenset[int]] = field(default_factory=dict)  # failed through impact mode
    _candidates: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def candidates(self, domain: str) -> list[tuple[int, int]]:
        """The pairs (i < j) holding an element of ``domain`` whose marks meet (every such pair without
        pruning), in order."""
        hit = self._candidates.get(domain)
        if hit is None:
            mine = {n for n, (kind, _) in enumerate(self.elements) if DOMAIN_OF_KIND[kind] == domain}
            if self.prune:
                # a cooling element's marks are cooling marks only (it changes nothing in the power chain),
                # so a pair holding one meets, if at all, at a pool, a hall's air units or a loop
                marks = self.cooling_marks if domain == "cooling" else full_marks(self.snap)
                hit = sorted(candidate_pairs(marks, self.room, mine))
            else:
                n = len(self.elements)
                hit = [(i, j) for i in range(n) for j in range(i + 1, n) if i in mine or j in mine]
            self._candidates[domain] = hit
        return hit

    def lost_together(self, i: int, j: int) -> frozenset[int]:
        """The racks elements ``i`` and ``j`` lose failed together."""
        a, b = sorted((self.rep[i], self.rep[j]))
        if a == b:  # two elements of one series chain: the pair is its lowest element failed alone
            return self.lost[a]
        hit = self.solved.get((a, b))
        if hit is None:
            outcome = fail(self.snap, [self.elements[a], self.elements[b]])
            hit = self.solved[(a, b)] = outcome.racks_lost_power | outcome.racks_lost_cooling
        return hit


def single_failures(snap: CampusSnapshot) -> list[tuple[FailureOutcome, Marks]]:
    """Every element (``redundancy_elements``, in order) failed alone: its outcome and its cooling marks
    (the capacity it takes out of pools, halls' air units and loops), kept with the snapshot: the
    redundancy check and the pair search read the same sweep. The power marks (``full_marks``) are worked
    out only for the power domain's pairs and not kept: at 1M GPUs they would hold millions of entries."""
    memo = snapshot_memo(snap)
    hit = memo.get("redundancy_singles")
    if hit is not None:
        return hit  # type: ignore[return-value]
    g = power_graph(snap)
    units_at_design, plants_at_design = _design_stopped(snap, g)
    out: list[tuple[FailureOutcome, Marks]] = []
    for kind, ident, _ in redundancy_elements(snap):
        outcome = fail(snap, [(kind, ident)])
        stopped = (outcome.units_stopped - units_at_design, outcome.plants_stopped - plants_at_design)
        out.append((outcome, _cooling_marks(snap, g, *stopped)))
    memo["redundancy_singles"] = out
    return out


def full_marks(snap: CampusSnapshot) -> list[Marks]:
    """Every element's marks, power and cooling (``_power_marks``, ``_cooling_marks``): a power element is
    failed again for the power solve it runs, a cooling element's marks are its cooling marks."""
    g = power_graph(snap)
    start = design_state(snap, g)
    out: list[Marks] = []
    for (kind, ident, _), (_, cooling) in zip(redundancy_elements(snap), single_failures(snap), strict=True):
        if DOMAIN_OF_KIND[kind] == "cooling":
            out.append(cooling)
            continue
        _, res = fail_with_solve(snap, [(kind, ident)])
        marks = _power_marks(g, res, start.outcome)
        marks.update(cooling)
        out.append(marks)
    return out


def pair_search(snap: CampusSnapshot, prune: bool = True) -> PairSearch:
    """Every element of both domains failed alone, and the pairs whose marks meet (``prune=False``: every
    pair, the check of the pruning). A pair may hold a power and a cooling element: a CDU failing while the
    feed of its partner is out for maintenance (docs/model.md, "Achieved redundancy")."""
    memo = snapshot_memo(snap)
    key = f"redundancy_pairs:{prune}"
    if key in memo:
        return memo[key]  # type: ignore[return-value]
    g = power_graph(snap)
    start = design_state(snap, g)
    room = _headroom(snap, g, start.outcome)
    found = redundancy_elements(snap)
    elements: list[Element] = [(k, i) for k, i, _ in found]
    singles = single_failures(snap)
    lost = [outcome.racks_lost_power | outcome.racks_lost_cooling for outcome, _ in singles]
    cooling = [m for _, m in singles]
    rep = series_representatives(snap, g, elements) if prune else list(range(len(elements)))
    names = {(k, i): n for k, i, n in found}
    result = memo[key] = PairSearch(snap, elements, names, lost, cooling, room, prune, rep)
    return result


def series_representatives(snap: CampusSnapshot, g: PowerGraph, elements: list[Element]) -> list[int]:
    """Per element (by index), the element whose failure it equals in every pair: itself, or for a power
    device in series above another, the lowest device of its series chain.

    A device d is in series above c when d's one output feeds c, that feed is c's only input (c has no
    utility connection of its own), and d supplies no cooling unit or plant. Then for any set S of elements
    failed with it, S + d and S + c leave every device but d equally live (every path from below through d
    passes c, and c is dead either way: fed by d alone, or failed) and every load equal (d carries nothing:
    dead, or alive above a dead c, which cannot overload it or draw on its utility), so the cascade, the
    cooling that follows the power, and the racks lost are the same (docs/model.md, "Achieved redundancy")."""
    idx = _cooling_index(snap, g)
    index = {el: n for n, el in enumerate(elements)}

    def below(d: int) -> int | None:
        downs = g.down_feeds[d]
        if len(downs) != 1 or d in idx.units_fed_by or d in idx.plants_fed_by:
            return None
        c = g.feeds[downs[0]].downstream_device_id
        if c is None or len(g.up_feeds[c]) != 1 or g.devices[c].utility_feed_id is not None:
            return None
        return c if ("power", c) in index else None

    rep = list(range(len(elements)))
    for n, (kind, ident) in enumerate(elements):
        if kind != "power":
            continue
        d, seen = ident, {ident}
        while (c := below(d)) is not None and c not in seen:
            d = c
            seen.add(c)
        rep[n] = index[("power", d)]
    return rep


def domain_level(snap: CampusSnapshot, domain: str, prune: bool = True) -> DomainLevel:
    """The achieved level of one domain, its chains and racks, kept with the snapshot, read from the pair
    search of both domains (``pair_search``): the domain's elements failed alone, and every pair holding
    one of them (with another of the domain or of the other domain). Pairs whose marks do not meet lose
    what their two elements lose alone and are not failed; ``bench/bench_redundancy_levels.py`` measures
    the search."""
    memo = snapshot_memo(snap)
    key = f"redundancy_level:{domain}:{prune}"
    if key in memo:
        return memo[key]  # type: ignore[return-value]
    g = power_graph(snap)
    start = design_state(snap, g)
    gpus = counted_racks(g)
    if domain == "cooling":
        # a rack without power at design is the power chain's shortfall; no cooling can lose it
        gpus = {r: n for r, n in gpus.items() if r not in start.dark and r not in g.unfed_racks}
    declared = snap.power_redundancy if domain == "power" else snap.cooling_redundancy
    search = pair_search(snap, prune)
    elements, names = search.elements, search.names
    if domain == "power":
        down = sorted(r for r in start.dark | g.unfed_racks if r in gpus)
    else:
        down = sorted(r for r in start.uncooled - start.dark if r in gpus)
    mine = [DOMAIN_OF_KIND[k] == domain for k, _ in elements]
    lost = [frozenset(r for r in racks if r in gpus) for racks in search.lost]
    level = dict.fromkeys(gpus, "2N")
    for r in down:
        level[r] = "N"
    singles = []
    for el, racks, ours in zip(elements, lost, mine, strict=True):
        if not ours:
            continue
        for r in racks:
            level[r] = "N"
        if racks:
            singles.append(_named(el, names, racks, gpus))
    found = []
    checked = 0
    for i, j in search.candidates(domain):
        checked += 1
        racks = {r for r in search.lost_together(i, j) if r in gpus}
        # what neither loses alone (a rack the other domain's element loses alone is that domain's N)
        extra = racks - lost[i] - lost[j]
        if not extra:
            continue
        for r in extra:
            if level[r] == "2N":
                level[r] = "N+1"
        found.append(
            {
                "maintenance": _named(elements[i], names, (), gpus)["element"],
                "failure": _named(elements[j], names, (), gpus)["element"],
                "gpus_lost": sum(gpus[r] for r in racks),
                "racks_lost": sorted(racks),
            }
        )
    singles.sort(key=lambda s: (-s["gpus_lost"], s["element"]["kind"], s["element"]["id"]))
    found.sort(key=lambda p: (-p["gpus_lost"], p["maintenance"]["id"], p["failure"]["id"]))
    n_mine = sum(mine)
    result = DomainLevel(
        domain=domain,
        declared=declared or "",
        achieved=worst(level.values()),
        rack_level=level,
        single_failures=singles[:MAX_LISTED],
        pairs=found[:MAX_LISTED],
        pairs_count=len(found),
        elements=n_mine,
        # the domain's own pairs and those with one element of the other domain
        pairs_total=n_mine * (n_mine - 1) // 2 + n_mine * (len(elements) - n_mine),
        pairs_checked=checked,
        racks_down_at_design=down,
        _gpu_count=gpus,
    )
    result.groups = _groups(result, _group_of_rack(snap)[domain], gpus)
    memo[key] = result
    return result


def counted_racks(g: PowerGraph) -> dict[int, int]:
    """The racks whose loss counts, with their GPUs: those holding GPUs or drawing IT (a storage or network
    rack stops the jobs as surely as a GPU rack); empty positions count for nothing."""
    return {
        r: g.rack_gpu_count.get(r, 0)
        for r in g.racks
        if g.rack_gpu_count.get(r, 0) > 0 or g.load_kw.get(r, 0.0) > 0
    }


def _design_stopped(snap: CampusSnapshot, g: PowerGraph) -> tuple[frozenset[int], frozenset[int]]:
    """Cooling units and plants already stopped at design (their supplies dead, their loop short)."""
    found = g.memo.get("redundancy_design_stopped")
    if found is None:
        design = fail(snap, [])
        found = g.memo["redundancy_design_stopped"] = (design.units_stopped, design.plants_stopped)
    return found  # type: ignore[return-value]


def _named(el: Element, names: dict[Element, str], racks: Iterable[int], gpus: dict[int, int]) -> dict:
    racks = sorted(racks)
    return {
        "element": {"kind": el[0], "id": el[1], "name": names.get(el, "")},
        "gpus_lost": sum(gpus[r] for r in racks),
        "racks_lost": racks,
    }


def _groups(result: DomainLevel, chain_of: dict[int, tuple[str, object, str]], gpus: dict[int, int]) -> list:
    want = rank(result.declared)
    by_chain: dict[tuple[str, object], list[int]] = {}
    names: dict[tuple[str, object], str] = {}
    for r in result.rack_level:
        kind, ident, name = chain_of.get(r, ("hall", 0, ""))
        by_chain.setdefault((kind, ident), []).append(r)
        names[(kind, ident)] = name
    out = []
    for (kind, ident), racks in by_chain.items():
        levels = [result.rack_level[r] for r in racks]
        out.append(
            GroupLevel(
                kind=kind,
                id=ident,
                name=names[(kind, ident)],
                achieved=worst(levels),
                racks=len(racks),
                gpus=sum(gpus[r] for r in racks),
                gpus_at_risk=sum(gpus[r] for r in racks if RANK[result.rack_level[r]] < want),
            )
        )
    out.sort(key=lambda gr: (RANK[gr.achieved], -gr.gpus_at_risk, gr.name))
    return out
