"""The seed-independent half of the liquid_cooling kind: each cooling event resolved to its target and
turned into steps of conductance and coolant ramp, and the racks grouped by cooling class, GPU model and
the events that reach them, with the heat each group carries.

``simulations.engine.kinds.liquid_cooling.model`` runs the groups through time on this plan; the model is
described in the package (``simulations.engine.kinds.liquid_cooling``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from campus.analysis.heat import heat_map, plant_loops
from campus.analysis.job_compute import job_figures
from campus.analysis.snapshot import CampusSnapshot, GpuSpec
from campus.catalog_data import default_value
from simulations.engine.fields import ParamsError
from simulations.engine.kinds.liquid_cooling.params import CoolingEvent, LiquidCoolingParams

WATER_J_PER_K_PER_L = 4186.0
LIQUID_TYPES = frozenset({"direct-to-chip", "immersion"})


@dataclass
class Group:
    label: str
    gpu: GpuSpec
    gpus: int
    load_kw: float
    liquid: bool
    events: tuple[int, ...]  # indices of the events that reach it
    rack_ids: tuple[int, ...] = ()


@dataclass
class EventEffect:
    start_s: float
    end_s: float
    g_factor: float  # conductance multiplier while active (the first step's when stepped)
    supply_rise_k: float
    ramp_k_per_s: float
    # (from_s, value) steps within the window: the cover changes as other losses come and go
    g_steps: tuple[tuple[float, float], ...] = ()
    ramp_steps: tuple[tuple[float, float], ...] = ()

    def g_at(self, t_s: float) -> float:
        return _step_at(self.g_steps, t_s, self.g_factor)

    def ramp_at(self, t_s: float) -> float:
        return _step_at(self.ramp_steps, t_s, self.ramp_k_per_s)

    def ramp_rise_k(self, t_s: float) -> float:
        """Coolant rise from the ramp between the start and ``t_s``, K."""
        steps = self.ramp_steps or ((self.start_s, self.ramp_k_per_s),)
        ends = [s for s, _ in steps[1:]] + [math.inf]
        return sum(k * (min(t_s, e) - s) for (s, k), e in zip(steps, ends, strict=True) if s < t_s)

    def ramp_reaches_s(self, rise_k: float) -> float:
        """First time the ramp has raised the coolant by ``rise_k``; inf if it never does."""
        steps = self.ramp_steps or ((self.start_s, self.ramp_k_per_s),)
        ends = [s for s, _ in steps[1:]] + [math.inf]
        done = 0.0
        for (s, k), e in zip(steps, ends, strict=True):
            if k > 0 and done + k * (e - s) >= rise_k:
                return s + (rise_k - done) / k
            done += k * (e - s) if math.isfinite(e) else 0.0
        return math.inf


def _step_at(steps: tuple[tuple[float, float], ...], t_s: float, first: float) -> float:
    value = first
    for from_s, v in steps:
        if from_s <= t_s:
            value = v
    return value


@dataclass
class CoolingPlan:
    params: LiquidCoolingParams
    groups: list[Group]
    effects: list[EventEffect]
    supply_c: dict[str, float]  # group label -> nominal coolant temperature
    campus_gpus: int
    job_interval_h: float
    targets: list[int | None] = field(default_factory=list)
    # what each event hit, by name: {"event": index in params.events, "kind", "id", "name"}
    failed: list[dict] = field(default_factory=list)
    # a CDU loss without a target whose smallest uncovered set has more than one unit (no single loss is)
    default_set: bool = False
    # the job's (every GPU of the campus) MFU, checkpoint write and restart, each with its source: typed, the
    # hardware's or the catalog's (``campus.analysis.job_compute.job_figures``)
    job: dict = field(default_factory=dict)


def uncovered_cdus(
    snap: CampusSnapshot, gpus_by_unit: dict[int, int], load_by_unit: dict[int, float]
) -> tuple[int, ...]:
    """The CDU whose loss its redundancy group cannot cover, or, when every single loss is covered, the
    smallest set of one group's units that is not: the default target of a CDU loss, so that the run shows
    what a failure beyond N+1 does rather than a loss the spare carries.

    A loss is covered when the group's live units have the spare for the lost units' heat (``_cover_steps``):
    sum(lost heat) <= sum over the others of (capacity - heat), that is sum(lost capacity) <= the group's
    spare. So the smallest uncovered set of a group is its largest units first; a unit in no group is
    uncovered alone. Units serving racks only (CDUs when any CDU serves racks); among groups, the smallest
    set, then the most GPUs, then the lowest ids."""
    serving = [u for u in snap.cooling_units if gpus_by_unit.get(u.id, 0) > 0]
    cdus = [u for u in serving if u.kind == "cdu"]
    candidates = cdus or serving
    best: tuple | None = None
    for key in dict.fromkeys((u.hall_id, u.group) for u in candidates):
        hall, group = key
        mine = sorted(
            (u for u in candidates if (u.hall_id, u.group) == key),
            key=lambda u: (-u.capacity_kw, -load_by_unit.get(u.id, 0.0), -gpus_by_unit[u.id], u.id),
        )
        if not group:
            sets = [(u.id,) for u in mine]
        else:
            peers = [u for u in snap.cooling_units if u.group == group and u.hall_id == hall]
            spare = sum(u.capacity_kw - load_by_unit.get(u.id, 0.0) for u in peers)
            lost_cap, chosen, sets = 0.0, [], []
            for u in mine:
                lost_cap += u.capacity_kw
                chosen.append(u.id)
                if lost_cap > spare + 1e-9:
                    sets = [tuple(chosen)]
                    break
        for ids in sets:
            rank = (len(ids), -sum(gpus_by_unit[i] for i in ids), sorted(ids))
            if best is None or rank < best[0]:
                best = (rank, ids)
    return tuple(sorted(best[1])) if best is not None else ()


def _pick_target(
    snap: CampusSnapshot, ev: CoolingEvent, gpus_by_unit: dict[int, int], field_name: str
) -> int:
    plants = {p.id for p in snap.cooling_plants}
    units = {u.id for u in snap.cooling_units}
    if ev.kind == "chiller_loss":
        by_plant: dict[int, int] = {}
        for u in snap.cooling_units:
            if u.plant_id is not None:
                by_plant[u.plant_id] = by_plant.get(u.plant_id, 0) + gpus_by_unit.get(u.id, 0)
        if ev.target_id is None:
            if not by_plant:
                raise ParamsError(
                    [{"field": field_name, "message": "the campus has no cooling plant serving racks"}]
                )
            return max(by_plant, key=lambda k: (by_plant[k], -k))
        if ev.target_id not in plants:
            raise ParamsError([{"field": field_name, "message": f"no cooling plant {ev.target_id}"}])
        return ev.target_id
    if ev.target_id is None:
        if not gpus_by_unit:
            raise ParamsError([{"field": field_name, "message": "no rack is served by a cooling unit"}])
        return max(gpus_by_unit, key=lambda k: (gpus_by_unit[k], -k))
    if ev.target_id not in units:
        raise ParamsError([{"field": field_name, "message": f"no cooling unit {ev.target_id}"}])
    return ev.target_id


def _conductance_factor(flow: float, p: LiquidCoolingParams) -> float:
    g_factor = max(flow**p.flow_exponent if flow > 0 else 0.0, p.residual_conductance_fraction)
    return min(g_factor, 1.0)


def _cover_steps(
    i: int,
    windows: list[tuple[float, float]],
    targets: list[int | None],
    kinds: list[str],
    peers: list[tuple[int, float]],
    load: dict[int, float],
) -> tuple[tuple[float, float], ...]:
    """(from_s, cover) over event ``i``'s window: the spare of the peers (id, capacity) still running over
    the heat of every peer lost at that moment, so spare capacity counts once however many are lost."""
    start, end = windows[i]
    peer_ids = {pid for pid, _ in peers}
    losses = [
        (*windows[j], targets[j])
        for j in range(len(targets))
        if kinds[j] == kinds[i] and targets[j] in peer_ids
    ]
    cuts = sorted({start, *(x for s, e, _ in losses for x in (s, e) if start < x < end)})
    steps = []
    for t in cuts:
        lost = {pid for s, e, pid in losses if s <= t < e} | {targets[i]}
        heat = sum(load.get(pid, 0.0) for pid in lost)
        spare = sum(cap - load.get(pid, 0.0) for pid, cap in peers if pid not in lost)
        steps.append((t, min(1.0, max(spare, 0.0) / heat) if heat > 0 else 1.0))
    return tuple(steps)


def prepare(snap: CampusSnapshot, params: LiquidCoolingParams) -> CoolingPlan:
    p = params
    racks = [r for r in snap.racks if r.status not in ("failed", "offline", "decommissioned") and r.nodes]
    gpus_by_unit: dict[int, int] = {}
    for r in racks:
        if r.cooling_unit_id is not None:
            gpus_by_unit[r.cooling_unit_id] = gpus_by_unit.get(r.cooling_unit_id, 0) + sum(
                snap.rack_gpus(r).values()
            )
    # the heat each unit carries, as the campus heat balance places it
    load_by_unit = heat_map(snap).unit_kw
    units = {u.id: u for u in snap.cooling_units}
    plants = {pl.id: pl for pl in snap.cooling_plants}
    plant_load = {
        pid: sum(load_by_unit.get(u.id, 0.0) for u in snap.cooling_units if u.plant_id == pid)
        for pid in plants
    }
    effects: list[EventEffect] = []
    hit_units: list[set[int]] = []
    # Each event with its target; a CDU loss without one fails the units its group cannot cover
    # (``uncovered_cdus``), one event per unit at the same time.
    events: list[CoolingEvent] = []
    targets: list[int | None] = []
    source: list[int] = []
    default_set = False
    for i, ev in enumerate(p.events):
        if ev.kind == "cdu_loss" and ev.target_id is None:
            # none uncovered (no unit carries heat): the unit carrying the most GPUs, as for the other kinds
            ids = uncovered_cdus(snap, gpus_by_unit, load_by_unit) or (
                _pick_target(snap, ev, gpus_by_unit, f"events[{i}].target_id"),
            )
            default_set = default_set or len(ids) > 1
        else:
            ids = (_pick_target(snap, ev, gpus_by_unit, f"events[{i}].target_id"),)
        events += [ev] * len(ids)
        targets += ids
        source += [i] * len(ids)
    kinds = [ev.kind for ev in events]
    windows = []
    for ev, target in zip(events, targets, strict=True):
        restart = 0.0  # a chiller is back after its repair and its restart
        if ev.kind == "chiller_loss":
            own = plants[target].restart_minutes
            restart = p.chiller_restart_minutes if p.chiller_restart_minutes is not None else own
        windows.append((ev.at_minutes * 60.0, (ev.at_minutes + ev.repair_minutes + restart) * 60.0))
    full_ramp = 1000.0 / (p.loop_volume_l_per_kw * WATER_J_PER_K_PER_L)  # K/s with no heat rejected
    for i, ev in enumerate(events):
        target = targets[i]
        start, end = windows[i]
        g_factor, rise, ramp = 1.0, 0.0, 0.0
        g_steps: tuple[tuple[float, float], ...] = ()
        ramp_steps: tuple[tuple[float, float], ...] = ()
        if ev.kind == "chiller_loss":
            # only the plants on the lost plant's loop can take its heat (an air-side chiller cannot
            # take a liquid loop's): heat.plant_loops
            loop = plant_loops(snap)
            peers = [(pl.id, pl.capacity_kw) for pl in plants.values() if loop[pl.id] == loop[target]]
            covers = _cover_steps(i, windows, targets, kinds, peers, plant_load)
            ramp_steps = tuple((t, (1.0 - cover) * full_ramp) for t, cover in covers)
            ramp = ramp_steps[0][1]
            hit = {u.id for u in snap.cooling_units if u.plant_id == target}
        else:
            hit = {target}
            if ev.kind == "supply_temp_excursion":
                rise = ev.supply_rise_k
            elif ev.kind == "pump_loss":
                g_factor = _conductance_factor(ev.remaining_flow_fraction, p)
            else:
                unit = units[target]
                peers = [
                    (u.id, u.capacity_kw)
                    for u in units.values()
                    if u.group == unit.group and u.hall_id == unit.hall_id
                ]
                covers = _cover_steps(i, windows, targets, kinds, peers, load_by_unit) if unit.group else ()
                # a unit in no group has no one to cover for it: its flow stops
                g_steps = tuple((t, _conductance_factor(cover, p)) for t, cover in covers) or (
                    (start, _conductance_factor(0.0, p)),
                )
                g_factor = g_steps[0][1]
        effects.append(EventEffect(start, end, g_factor, rise, ramp, g_steps, ramp_steps))
        hit_units.append(hit)
    # groups: racks with the same cooling class, GPU model and set of events reaching them
    acc: dict[tuple, list[float]] = {}
    meta: dict[tuple, tuple[GpuSpec, bool, tuple[int, ...]]] = {}
    members: dict[tuple, list[int]] = {}
    campus_gpus = 0
    for r in racks:
        evs = tuple(i for i, hit in enumerate(hit_units) if r.cooling_unit_id in hit)
        liquid = r.cooling_type in LIQUID_TYPES
        rack_gpus = snap.rack_gpus(r)
        total = sum(rack_gpus.values()) or 1
        for slug, n in rack_gpus.items():
            campus_gpus += n
            key = (liquid, slug, evs)
            a = acc.setdefault(key, [0, 0.0])
            a[0] += n
            a[1] += snap.rack_it_kw(r) * n / total
            meta[key] = (snap.gpus[slug], liquid, evs)
            members.setdefault(key, []).append(r.id)
    # An event in a series key: "e<n>" (read "event n+1"), or, for one unit of a default set (one event failing
    # several units), the unit's name, so that the legend names the CDU rather than an event the user never wrote.
    tokens = [
        f"e{source[i]}" if source.count(source[i]) == 1 else _key_safe(_target_name(snap, kinds[i], t))
        for i, t in enumerate(targets)
    ]
    groups = []
    supply: dict[str, float] = {}
    unit_supply = {u.id: u.supply_temp_c for u in snap.cooling_units}
    for key, (n, kw) in sorted(acc.items(), key=lambda kv: (kv[0][2], kv[0][1], kv[0][0])):
        gpu, liquid, evs = meta[key]
        label = f"{'liquid' if liquid else 'air'}/{gpu.slug}/" + (
            "+".join(tokens[i] for i in evs) or "unaffected"
        )
        groups.append(Group(label, gpu, int(n), kw, liquid, evs, tuple(members[key])))
        temps = [
            unit_supply[t]
            for i in evs
            for t in ([targets[i]] if events[i].kind != "chiller_loss" else [])
            if t in unit_supply
        ]
        supply[label] = (
            temps[0] if temps else (default_value("supply_temp_c") if liquid else snap.ambient_temp_c)
        )
    interval_h = p.job.checkpoint_interval_minutes / 60.0
    failed = [
        {"event": source[i], "kind": kinds[i], "id": t, "name": _target_name(snap, kinds[i], t)}
        for i, t in enumerate(targets)
    ]
    job = job_figures(
        snap,
        racks,
        p.job.precision,
        mfu=p.job.mfu,
        checkpoint_minutes=p.job.checkpoint_write_minutes,
        restart_minutes=p.job.restart_minutes,
    )
    job = {k: v for k, v in job.items() if not k.startswith("mfu")}  # the kind reads no throughput
    return CoolingPlan(
        p,
        groups,
        effects,
        supply,
        campus_gpus,
        interval_h,
        targets,
        failed=failed,
        default_set=default_set,
        job=job,
    )


def _key_safe(name: str) -> str:
    """A name as a token of a series key, whose separators are ".", "/" and "+"."""
    return "".join("-" if ch in "./+" else ch for ch in name) or "unit"


def _target_name(snap: CampusSnapshot, kind: str, target: int | None) -> str:
    rows = snap.cooling_plants if kind == "chiller_loss" else snap.cooling_units
    return next((r.name for r in rows if r.id == target), f"{kind} target {target}")
