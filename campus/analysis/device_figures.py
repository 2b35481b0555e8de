"""A power device's figures for its own page: rating, load, planning headroom, and the headroom left after the
worst single failure of another device (the load a failed partner hands over).

The failures tried are the devices whose failure can move load onto this one: every device above the racks
and devices this one serves, less this device's own sources (their failure takes this device down with
them: that is what impact mode reports) and less what it serves. In a 2N chain these are the other side's
devices; for parallel generators or UPS modules, the other modules. Each is failed alone through the same
roll-up as every other figure (``power.rollup``), so a tripped partner's load lands where the cascade sends
it. Loads are at the campus's current IT load (``snap.rack_it_kw``), as the summary's.
"""

from __future__ import annotations

from dataclasses import dataclass

from campus.analysis.power import PowerRollup, rollup
from campus.analysis.snapshot import CampusSnapshot

MAX_FAILURES_TRIED = 200  # a bound on the roll-ups one page asks for (a substation of a 1M-GPU campus)


@dataclass(frozen=True)
class WorstFailure:
    device_id: int
    device_name: str
    load_kw: float  # this device's input power with that device failed
    headroom_kw: float  # rated_kw * max_utilization - load_kw
    utilization: float  # load_kw / rated_kw


@dataclass(frozen=True)
class DeviceFigures:
    device_id: int
    rated_kw: float
    max_utilization: float
    load_kw: float
    utilization: float
    headroom_kw: float
    failures_tried: int
    failures_capped: bool
    worst: WorstFailure | None

    def as_dict(self) -> dict:
        worst = self.worst
        return {
            "rated_kw": self.rated_kw,
            "max_utilization": self.max_utilization,
            "usable_kw": self.rated_kw * self.max_utilization,
            "load_kw": self.load_kw,
            "utilization": self.utilization,
            "headroom_kw": self.headroom_kw,
            "failures_tried": self.failures_tried,
            "failures_capped": self.failures_capped,
            "worst_single_failure": None
            if worst is None
            else {
                "device": {"id": worst.device_id, "name": worst.device_name},
                "load_kw": worst.load_kw,
                "headroom_kw": worst.headroom_kw,
                "utilization": worst.utilization,
            },
        }


def _links(snap: CampusSnapshot) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Down and up adjacency of devices ("d:<id>") and racks ("r:<id>") through the power feeds."""
    down: dict[str, set[str]] = {}
    up: dict[str, set[str]] = {}
    for f in snap.power_feeds:
        if f.downstream_device_id is not None:
            child = f"d:{f.downstream_device_id}"
        elif f.rack_id is not None:
            child = f"r:{f.rack_id}"
        else:
            continue
        down.setdefault(f"d:{f.upstream_id}", set()).add(child)
        up.setdefault(child, set()).add(f"d:{f.upstream_id}")
    return down, up


def _reach(start: set[str], links: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    stack = list(start)
    while stack:
        n = stack.pop()
        for m in links.get(n, ()):
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return seen


def partner_devices(snap: CampusSnapshot, device_id: int) -> list[int]:
    """The devices whose single failure may move load onto ``device_id`` (module docstring), by id."""
    down, up = _links(snap)
    me = f"d:{device_id}"
    below = _reach({me}, down)
    above = _reach({me}, up)
    sharing = _reach(below, up)
    return sorted(int(n[2:]) for n in sharing - below - above - {me} if n.startswith("d:"))


def device_figures(snap: CampusSnapshot, device_id: int, base: PowerRollup | None = None) -> DeviceFigures:
    """The figures of one power device (module docstring); ``base`` is the campus's roll-up when the caller
    keeps one. Raises ValueError for a device not in the snapshot."""
    devices = {d.id: d for d in snap.power_devices}
    dev = devices.get(device_id)
    if dev is None:
        raise ValueError(f"device: no power device {device_id} in this campus")
    base = base if base is not None else rollup(snap)
    usable = dev.rated_kw * dev.max_utilization
    load = base.device_load_kw.get(device_id, 0.0)
    partners = partner_devices(snap, device_id)
    tried = partners[:MAX_FAILURES_TRIED]
    worst: WorstFailure | None = None
    for other in tried:
        after = rollup(snap, failed=frozenset({other}))
        if device_id in after.dead_devices:
            continue  # it went down with the other (a trip): impact mode's answer, not a headroom
        kw = after.device_load_kw.get(device_id, 0.0)
        if worst is None or usable - kw < worst.headroom_kw:
            worst = WorstFailure(
                device_id=other,
                device_name=devices[other].name,
                load_kw=kw,
                headroom_kw=usable - kw,
                utilization=kw / dev.rated_kw if dev.rated_kw else 0.0,
            )
    return DeviceFigures(
        device_id=device_id,
        rated_kw=dev.rated_kw,
        max_utilization=dev.max_utilization,
        load_kw=load,
        utilization=load / dev.rated_kw if dev.rated_kw else 0.0,
        headroom_kw=usable - load,
        failures_tried=len(tried),
        failures_capped=len(partners) > len(tried),
        worst=worst,
    )
