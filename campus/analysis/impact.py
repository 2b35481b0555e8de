"""What is impacted if elements fail: racks and GPUs losing a power side, all power, or cooling.

A power failure runs the roll-up cascade to its end. Cooling follows power: a cooling unit whose supplies
(``power_device_id``, ``power_device_b_id``) are all dead stops, and so does a plant whose supplies are all
dead. A stopped plant stops its units unless the building's other plants can take the building's heat;
racks of a stopped unit lose cooling unless the rest of its N+1 group can carry the group's heat. A
campus-wide synchronous job is interrupted when any of its GPUs is lost (no power, or no cooling).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from campus.analysis.power import PowerRollup, baseline_rollup, power_graph, rollup
from campus.analysis.snapshot import CampusSnapshot

KINDS = ("power", "cooling", "plant", "utility")


@dataclass
class Impact:
    kind: str
    device_id: int
    device_name: str
    racks_lost_a: list[int]  # lost side A only
    racks_lost_b: list[int]  # lost side B only
    racks_lost_both: list[int]  # without power
    racks_lost_cooling: list[int]  # powered, but their cooling unit stopped
    gpus_lost_a: int
    gpus_lost_b: int
    gpus_lost_power: int
    gpus_lost_cooling: int
    tripped: list[tuple[str, int, str]]  # the cascade, in order
    dead_devices: list[int]
    cooling_units_stopped: list[int]
    plants_stopped: list[int]
    usable_gpus_before: int
    usable_gpus_after: int
    job_interrupted: bool
    job_fraction_lost: float
    names: dict[str, dict[int, str]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "device_id": self.device_id,
            "device_name": self.device_name,
            "racks": {
                "lost_a": self.racks_lost_a,
                "lost_b": self.racks_lost_b,
                "lost_both": self.racks_lost_both,
                "lost_cooling": self.racks_lost_cooling,
            },
            "gpus": {
                "lost_a": self.gpus_lost_a,
                "lost_b": self.gpus_lost_b,
                "lost_power": self.gpus_lost_power,
                "lost_cooling": self.gpus_lost_cooling,
                "usable_before": self.usable_gpus_before,
                "usable_after": self.usable_gpus_after,
            },
            "tripped": [
                {"kind": k, "id": i, "name": self.names.get(k, {}).get(i, ""), "reason": r}
                for k, i, r in self.tripped
            ],
            "dead_devices": self.dead_devices,
            "cooling_units_stopped": self.cooling_units_stopped,
            "plants_stopped": self.plants_stopped,
            "job": {"interrupted": self.job_interrupted, "fraction_of_gpus_lost": self.job_fraction_lost},
        }


def _unpowered(supplies: tuple[int, ...], dead_devices: set[int]) -> bool:
    """A mechanical load stops when every one of its supplies is dead (none given: never for power)."""
    return bool(supplies) and all(s in dead_devices for s in supplies)


def _cooling_lost(
    snap: CampusSnapshot, dead_devices: set[int], failed_units: set[int], failed_plants: set[int]
) -> tuple[set[int], set[int], set[int]]:
    """(stopped plants, stopped units, racks left without cooling).

    Redundancy absorbs a loss when the survivors can carry the heat: the other plants of the same
    building (units re-home to them), and the other units of an N+1 group. Otherwise the racks of the
    stopped units lose cooling.
    """
    rack_kw = power_graph(snap).default_rack_load_kw
    heat: dict[int, float] = {}
    for r in snap.racks:
        if r.cooling_unit_id is not None:
            heat[r.cooling_unit_id] = heat.get(r.cooling_unit_id, 0.0) + rack_kw[r.id]
    plants = set(failed_plants) | {
        p.id for p in snap.cooling_plants if _unpowered(p.supply_ids, dead_devices)
    }
    plant_building = {p.id: p.building_id for p in snap.cooling_plants}
    orphaned: set[int] = set()  # plants whose units find no spare chiller capacity
    if plants:
        spare: dict[int | None, float] = {}
        load: dict[int | None, float] = {}
        for p in snap.cooling_plants:
            if p.id not in plants:
                spare[p.building_id] = spare.get(p.building_id, 0.0) + p.capacity_kw
        for u in snap.cooling_units:
            if u.plant_id in plant_building:
                b = plant_building[u.plant_id]
                load[b] = load.get(b, 0.0) + heat.get(u.id, 0.0)
        orphaned = {p for p in plants if load.get(plant_building[p], 0.0) > spare.get(plant_building[p], 0.0)}
    units = set(failed_units) | {
        u.id for u in snap.cooling_units if _unpowered(u.supply_ids, dead_devices) or u.plant_id in orphaned
    }
    uncovered = set(units)
    if units:
        by_group: dict[str, list] = {}
        for u in snap.cooling_units:
            if u.group:
                by_group.setdefault(u.group, []).append(u)
        for members in by_group.values():
            stopped = [u for u in members if u.id in units]
            if not stopped:
                continue
            survivors_kw = sum(u.capacity_kw for u in members if u.id not in units)
            if sum(heat.get(u.id, 0.0) for u in members) <= survivors_kw:
                uncovered -= {u.id for u in stopped}
    racks = {r.id for r in snap.racks if r.cooling_unit_id in uncovered}
    return plants, units, racks


def _usable(snap: CampusSnapshot, r: PowerRollup, cooled_out: set[int]) -> tuple[int, dict[int, int]]:
    gpus = power_graph(snap).rack_gpu_count
    lost = r.racks_without_power | cooled_out
    return sum(gpus.values()) - sum(gpus[rid] for rid in lost if rid in gpus), gpus


def impact(snap: CampusSnapshot, device_id: int, kind: str = "power") -> Impact:
    """Impact of losing one power device, cooling unit, cooling plant or utility feed (by id)."""
    if kind not in KINDS:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)}")
    g = power_graph(snap)
    failed_units: set[int] = set()
    failed_plants: set[int] = set()
    if kind == "power":
        if device_id not in g.devices:
            raise ValueError(f"device_id: no power device {device_id}")
        name = g.devices[device_id].name
        after = rollup(snap, failed=frozenset({device_id}))
    elif kind == "utility":
        feeds = {u.id: u for u in snap.utility_feeds}
        if device_id not in feeds:
            raise ValueError(f"device_id: no utility feed {device_id}")
        name = feeds[device_id].name
        after = rollup(snap, failed_feeds=frozenset({device_id}))
    elif kind == "cooling":
        units = {u.id: u for u in snap.cooling_units}
        if device_id not in units:
            raise ValueError(f"device_id: no cooling unit {device_id}")
        name = units[device_id].name
        failed_units.add(device_id)
        after = baseline_rollup(snap)
    else:
        plants = {p.id: p for p in snap.cooling_plants}
        if device_id not in plants:
            raise ValueError(f"device_id: no cooling plant {device_id}")
        name = plants[device_id].name
        failed_plants.add(device_id)
        after = baseline_rollup(snap)
    before = baseline_rollup(snap)
    _, _, cool_before = _cooling_lost(snap, before.dead_devices, set(), set())
    plants_out, units_out, cool_after = _cooling_lost(snap, after.dead_devices, failed_units, failed_plants)
    usable_before, gpus = _usable(snap, before, cool_before)
    usable_after, _ = _usable(snap, after, cool_after)

    def new(racks: set[int], old: set[int]) -> list[int]:
        return sorted(racks - old)

    lost_both = new(after.racks_without_power, before.racks_without_power)
    lost_a = sorted(
        rid
        for rid, sides in after.rack_sides_lost.items()
        if rid not in after.racks_without_power
        and "A" in sides
        and "A" not in before.rack_sides_lost.get(rid, ())
    )
    lost_b = sorted(
        rid
        for rid, sides in after.rack_sides_lost.items()
        if rid not in after.racks_without_power
        and "B" in sides
        and "B" not in before.rack_sides_lost.get(rid, ())
    )
    lost_cooling = sorted(cool_after - cool_before - after.racks_without_power)
    power_gpus = sum(gpus[r] for r in lost_both)
    cooling_gpus = sum(gpus[r] for r in lost_cooling)
    lost_total = usable_before - usable_after
    names: dict[str, dict[int, str]] = {"device": {}, "feed": {}}
    for k, i, _ in after.tripped:
        if k == "device":
            names["device"][i] = g.devices[i].name
        else:
            f = g.feeds[i]
            if f.downstream_device_id is not None:
                below = g.devices[f.downstream_device_id].name
            else:
                below = g.racks[f.rack_id].name if f.rack_id in g.racks else f"rack {f.rack_id}"
            names["feed"][i] = f"{g.devices[f.upstream_id].name} -> {below} ({f.side})"
    return Impact(
        kind=kind,
        device_id=device_id,
        device_name=name,
        racks_lost_a=lost_a,
        racks_lost_b=lost_b,
        racks_lost_both=lost_both,
        racks_lost_cooling=lost_cooling,
        gpus_lost_a=sum(gpus[r] for r in lost_a),
        gpus_lost_b=sum(gpus[r] for r in lost_b),
        gpus_lost_power=power_gpus,
        gpus_lost_cooling=cooling_gpus,
        tripped=after.tripped,
        dead_devices=sorted(after.dead_devices - before.dead_devices),
        cooling_units_stopped=sorted(units_out),
        plants_stopped=sorted(plants_out),
        usable_gpus_before=usable_before,
        usable_gpus_after=usable_after,
        job_interrupted=lost_total > 0,
        job_fraction_lost=lost_total / usable_before if usable_before else 0.0,
        names=names,
    )
