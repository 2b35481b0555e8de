"""Redundancy: fail each element alone and list the ones whose loss trips others or takes GPUs away."""

from __future__ import annotations

from dataclasses import dataclass

from campus.analysis.power import _racks_dark_after, _run, power_graph
from campus.analysis.snapshot import CampusSnapshot


@dataclass
class RedundancyFinding:
    device_id: int
    device_name: str
    kind: str  # "cascade": its loss trips others; "single-point": its loss leaves racks without power
    tripped: list[tuple[str, int, str]]
    racks_lost: list[int]
    gpus_lost: int

    def as_dict(self) -> dict:
        return {
            "device_id": self.device_id,
            "device_name": self.device_name,
            "kind": self.kind,
            "tripped": [{"kind": k, "id": i, "reason": r} for k, i, r in self.tripped],
            "racks_lost": self.racks_lost,
            "gpus_lost": self.gpus_lost,
        }


def redundancy_check(snap: CampusSnapshot, include_single_points: bool = True) -> list[RedundancyFinding]:
    """Fail each live device alone; report the ones whose loss trips another element (or, with
    ``include_single_points``, leaves racks without power that had it). Generators are skipped: they
    only carry load when the utility is gone, which is a double failure."""
    g = power_graph(snap)
    base = g.baseline()
    # The design load itself may already trip something; findings are what a failure adds to that.
    start = _run(g, (), frozenset(), (), None)
    start_dark = _racks_dark_after(g, start)
    start_trips = {(k, i) for k, i, _ in start.tripped}
    findings: list[RedundancyFinding] = []
    for d in g.order:
        if d in g.generators or not start.state.live.get(d, base.live.get(d, False)):
            continue
        res = _run(g, {d}, frozenset(), (), None)
        trips = [t for t in res.tripped if (t[0], t[1]) not in start_trips]
        lost = sorted(_racks_dark_after(g, res) - start_dark)
        if not trips and not (include_single_points and lost):
            continue
        gpus = sum(g.rack_gpu_count.get(r, 0) for r in lost)
        findings.append(
            RedundancyFinding(
                device_id=d,
                device_name=g.devices[d].name,
                kind="cascade" if trips else "single-point",
                tripped=trips,
                racks_lost=lost,
                gpus_lost=gpus,
            )
        )
    return findings
