"""Redundancy across every domain: fail each element alone and list the ones whose loss costs GPUs.

Elements: every utility feed, every live power device (generators excepted: they carry load only when the
utility is gone, which is a double failure), every cooling unit and every cooling plant. Each is failed
through ``campus.analysis.failures.fail`` (the core of impact mode, so the two always agree): the power
cascade runs to its end, cooling follows power, spare capacity is counted once. A finding is an element
whose loss trips another element (``cascade``), or leaves racks without power (``power``) or, powered,
without cooling (``cooling``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from campus.analysis.failures import design_state, fail
from campus.analysis.power import power_graph
from campus.analysis.snapshot import CampusSnapshot

_KIND_ORDER = {"utility": 0, "power": 1, "plant": 2, "cooling": 3}


@dataclass
class RedundancyFinding:
    device_kind: str  # "power" | "utility" | "cooling" | "plant": impact mode's ``kind``
    device_id: int
    device_name: str
    effect: str  # "cascade" | "power" | "cooling"
    gpus_lost: int  # without power, plus powered but without cooling
    tripped: list[tuple[str, int, str]]
    racks_lost: list[int]  # without power or without cooling
    gpus_lost_power: int = 0
    gpus_lost_cooling: int = 0
    racks_lost_cooling: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The earlier classification: ``cascade`` (trips others) or ``single-point`` (costs GPUs)."""
        return "cascade" if self.effect == "cascade" else "single-point"

    def as_dict(self) -> dict:
        return {
            "device_kind": self.device_kind,
            "device_id": self.device_id,
            "device_name": self.device_name,
            "effect": self.effect,
            "gpus_lost": self.gpus_lost,
            "gpus_lost_power": self.gpus_lost_power,
            "gpus_lost_cooling": self.gpus_lost_cooling,
            "kind": self.kind,
            "tripped": [{"kind": k, "id": i, "reason": r} for k, i, r in self.tripped],
            "racks_lost": self.racks_lost,
            "racks_lost_cooling": self.racks_lost_cooling,
        }


def redundancy_elements(snap: CampusSnapshot) -> list[tuple[str, int, str]]:
    """(kind, id, name) of every element the check fails alone."""
    g = power_graph(snap)
    start = design_state(snap, g)
    out: list[tuple[str, int, str]] = [("utility", u.id, u.name) for u in snap.utility_feeds]
    out += [("power", d, g.devices[d].name) for d in g.order if d not in g.generators and d not in start.dead]
    out += [("plant", p.id, p.name) for p in snap.cooling_plants]
    out += [("cooling", u.id, u.name) for u in snap.cooling_units]
    return out


def redundancy_check(snap: CampusSnapshot, include_single_points: bool = True) -> list[RedundancyFinding]:
    """Every element whose loss alone trips another or costs GPUs, the worst first. Without
    ``include_single_points`` only the cascades are listed."""
    findings: list[RedundancyFinding] = []
    for kind, ident, name in redundancy_elements(snap):
        res = fail(snap, [(kind, ident)])
        effect = res.effect
        if effect is None or (effect != "cascade" and not include_single_points):
            continue
        findings.append(
            RedundancyFinding(
                device_kind=kind,
                device_id=ident,
                device_name=name,
                effect=effect,
                gpus_lost=res.gpus_lost,
                tripped=list(res.tripped),
                racks_lost=sorted(res.racks_lost_power | res.racks_lost_cooling),
                gpus_lost_power=res.gpus_lost_power,
                gpus_lost_cooling=res.gpus_lost_cooling,
                racks_lost_cooling=sorted(res.racks_lost_cooling),
            )
        )
    findings.sort(key=lambda f: (-f.gpus_lost, _KIND_ORDER[f.device_kind], f.device_id))
    return findings


def unfed_racks(snap: CampusSnapshot) -> list[dict]:
    """Racks with a load and no power feed (``PowerGraph.unfed_racks``): dark whatever fails, so no failure
    finding names them; listed apart so a planner sees them (id order)."""
    g = power_graph(snap)
    return [
        {
            "id": rid,
            "name": g.racks[rid].name,
            "hall_id": g.racks[rid].hall_id,
            "gpus": g.rack_gpu_count.get(rid, 0),
            "fed_kw": g.load_kw.get(rid, 0.0),
        }
        for rid in sorted(g.unfed_racks)
    ]


# Element kinds of each domain: a power device or utility feed belongs to the power chain (the mechanical
# boards and PDUs too: their loss is the power chain's), a cooling unit or plant to the cooling.
DOMAIN_OF_KIND = {"utility": "power", "power": "power", "cooling": "cooling", "plant": "cooling"}


def single_points_by_domain(findings: list[RedundancyFinding]) -> dict[str, list[str]]:
    """Names of the elements found, per domain (``power``, ``cooling``)."""
    points: dict[str, list[str]] = {"power": [], "cooling": []}
    for f in findings:
        points[DOMAIN_OF_KIND[f.device_kind]].append(f.device_name)
    return points
