"""What is impacted if elements fail (one, or several at once): racks and GPUs losing a power side, all power, or cooling.

A power failure runs the roll-up cascade to its end. Cooling follows power: a cooling unit whose supplies
(``power_device_id``, ``power_device_b_id``) are all dead stops, and so does a plant whose supplies are all
dead. A stopped plant stops every unit of its loop unless the loop's other plants can take the loop's
heat (``heat.plant_loops``: an air-side plant never takes a liquid loop's heat); a stopped unit costs the
racks of its whole N+1 group unless the group's running units can carry the group's heat
(``failures.cooling_lost``). A pool already short at design load is the starting point, reported apart. A
campus-wide synchronous job is interrupted when any of its GPUs is lost (no power, or no cooling).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from campus.analysis.failures import KINDS, cooling_lost, effect_of, split_elements
from campus.analysis.power import PowerRollup, baseline_rollup, outage, power_graph, rollup
from campus.analysis.snapshot import CampusSnapshot


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
    failed: list[tuple[str, int, str]] = field(default_factory=list)  # (kind, id, name) of every element
    new_trips: int = 0  # trips beyond those of the design load
    # powered racks a cooling pool already short at design load leaves without cooling (not counted as lost)
    racks_uncooled_at_design: list[int] = field(default_factory=list)
    gpus_uncooled_at_design: int = 0

    @property
    def gpus_lost(self) -> int:
        return self.gpus_lost_power + self.gpus_lost_cooling

    @property
    def effect(self) -> str | None:
        """``cascade`` (trips another element), ``power``, ``cooling`` or None (nothing lost)."""
        return effect_of(self.new_trips, self.gpus_lost_power, self.gpus_lost_cooling)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "device_id": self.device_id,
            "device_name": self.device_name,
            "failed": [{"kind": k, "id": i, "name": n} for k, i, n in self.failed],
            "effect": self.effect,
            "gpus_lost": self.gpus_lost,
            "racks": {
                "lost_a": self.racks_lost_a,
                "lost_b": self.racks_lost_b,
                "lost_both": self.racks_lost_both,
                "lost_cooling": self.racks_lost_cooling,
                "without_cooling_at_design": self.racks_uncooled_at_design,
            },
            "gpus": {
                "lost_a": self.gpus_lost_a,
                "lost_b": self.gpus_lost_b,
                "lost_power": self.gpus_lost_power,
                "lost_cooling": self.gpus_lost_cooling,
                "usable_before": self.usable_gpus_before,
                "usable_after": self.usable_gpus_after,
                "without_cooling_at_design": self.gpus_uncooled_at_design,
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


def _usable(snap: CampusSnapshot, r: PowerRollup, cooled_out: set[int]) -> tuple[int, dict[int, int]]:
    gpus = power_graph(snap).rack_gpu_count
    lost = r.racks_without_power | cooled_out
    return sum(gpus.values()) - sum(gpus[rid] for rid in lost if rid in gpus), gpus


def impact(
    snap: CampusSnapshot,
    device_id: int | None = None,
    kind: str = "power",
    *,
    failed: Iterable[tuple[str, int]] = (),
) -> Impact:
    """Impact of losing a power device, cooling unit, cooling plant or utility feed (``device_id`` of
    ``kind``), together with every ``(kind, id)`` of ``failed``: a compound failure."""
    elements = list(failed)
    if device_id is not None:
        elements.insert(0, (kind, device_id))
    elif kind not in KINDS:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)}")
    if not elements:
        raise ValueError("failed: name at least one element")
    devices, utilities, units, plants = split_elements(snap, elements)
    g = power_graph(snap)
    names_of = {
        "power": {d: dev.name for d, dev in g.devices.items()},
        "utility": {u.id: u.name for u in snap.utility_feeds},
        "cooling": {u.id: u.name for u in snap.cooling_units},
        "plant": {p.id: p.name for p in snap.cooling_plants},
    }
    unique: list[tuple[str, int, str]] = []
    for k, i in elements:
        if (k, i) not in {(a, b) for a, b, _ in unique}:
            unique.append((k, i, names_of[k].get(i, "")))
    before = baseline_rollup(snap)
    if devices or utilities:
        after = rollup(snap, failed=frozenset(devices), failed_feeds=frozenset(utilities))
    else:
        after = before
    _, _, cool_before = cooling_lost(snap, before.dead_devices)
    plants_out, units_out, cool_after = cooling_lost(snap, after.dead_devices, units, plants)
    usable_before, gpus = _usable(snap, before, cool_before)
    usable_after, _ = _usable(snap, after, cool_after)

    def new(racks: set[int], old: set[int]) -> list[int]:
        return sorted(racks - old)

    def side_lost(side: str) -> list[int]:
        return sorted(
            rid
            for rid, sides in after.rack_sides_lost.items()
            if rid not in after.racks_without_power
            and side in sides
            and side not in before.rack_sides_lost.get(rid, ())
        )

    # racks already uncooled at design were not usable before: losing their power too costs nothing
    lost_both = new(after.racks_without_power, before.racks_without_power | cool_before)
    lost_a, lost_b = side_lost("A"), side_lost("B")
    lost_cooling = sorted(cool_after - cool_before - after.racks_without_power)
    lost_total = usable_before - usable_after
    uncooled_at_design = sorted(cool_before - before.racks_without_power)
    design_trips = {(k, i) for k, i, _ in before.tripped}
    names: dict[str, dict[int, str]] = {"device": {}, "feed": {}, "utility": {}}
    utility_names = {u.id: u.name for u in snap.utility_feeds}
    for k, i, _ in after.tripped:
        if k == "device":
            names["device"][i] = g.devices[i].name
        elif k == "utility":
            names["utility"][i] = utility_names.get(i, "")
        else:
            f = g.feeds[i]
            if f.downstream_device_id is not None:
                below = g.devices[f.downstream_device_id].name
            else:
                below = g.racks[f.rack_id].name if f.rack_id in g.racks else f"rack {f.rack_id}"
            names["feed"][i] = f"{g.devices[f.upstream_id].name} -> {below} ({f.side})"
    first_kind, first_id, first_name = unique[0]
    return Impact(
        kind=first_kind,
        device_id=first_id,
        device_name=first_name,
        racks_lost_a=lost_a,
        racks_lost_b=lost_b,
        racks_lost_both=lost_both,
        racks_lost_cooling=lost_cooling,
        gpus_lost_a=sum(gpus[r] for r in lost_a),
        gpus_lost_b=sum(gpus[r] for r in lost_b),
        gpus_lost_power=sum(gpus[r] for r in lost_both),
        gpus_lost_cooling=sum(gpus[r] for r in lost_cooling),
        tripped=after.tripped,
        dead_devices=sorted(after.dead_devices - before.dead_devices),
        cooling_units_stopped=sorted(units_out),
        plants_stopped=sorted(plants_out),
        usable_gpus_before=usable_before,
        usable_gpus_after=usable_after,
        job_interrupted=lost_total > 0,
        job_fraction_lost=lost_total / usable_before if usable_before else 0.0,
        names=names,
        failed=unique,
        new_trips=sum(1 for k, i, _ in after.tripped if (k, i) not in design_trips),
        racks_uncooled_at_design=uncooled_at_design,
        gpus_uncooled_at_design=sum(gpus.get(r, 0) for r in uncooled_at_design),
    )


def racks_lost(snap: CampusSnapshot, device_id: int, kind: str = "power") -> set[int]:
    """The racks ``impact(snap, device_id, kind)`` finds lost, without power or powered but without cooling
    (``racks_lost_both`` and ``racks_lost_cooling``), and nothing else: the same roll-up cascade and
    cooling rules, without the loads, names and GPU counts of the full answer (``power.outage``). The
    failure simulation asks this of every facility unit it can fail."""
    return racks_lost_many(snap, [(kind, device_id)])


def racks_lost_many(snap: CampusSnapshot, elements: Iterable[tuple[str, int]]) -> set[int]:
    """The racks lost when every one of ``elements`` ((kind, id) pairs) is down at once: one roll-up
    cascade with all of them failed, then the cooling rules, so two halves of a 2N chain down together
    darken the racks neither darkens alone."""
    devices, utilities, units, plants = split_elements(snap, list(elements))
    before = baseline_rollup(snap)
    if devices or utilities:
        dark, dead = outage(snap, frozenset(devices), frozenset(utilities))
    else:
        dark, dead = before.racks_without_power, before.dead_devices
    _, _, cool_before = cooling_lost(snap, before.dead_devices)
    _, _, cool_after = cooling_lost(snap, dead, units, plants)
    return (dark - before.racks_without_power - cool_before) | (cool_after - cool_before - dark)
