"""Redundancy across every domain: fail each element alone and list the ones whose loss costs GPUs.

Elements: every utility feed, every live power device (generators included: a standby generator beside
the utility costs nothing when it fails alone, so the sweep does not list it, while a device of kind
``generator`` in the middle of the chain is failed like any other), every cooling unit and every cooling
plant. Each is failed
through ``campus.analysis.failures.fail`` (the core of impact mode, so the two always agree): the power
cascade runs to its end, cooling follows power, spare capacity is counted once. A finding is an element
whose loss trips another element (``cascade``), or leaves racks without power (``power``) or, powered,
without cooling (``cooling``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from campus.analysis.cooling import pools_failing_redundancy
from campus.analysis.facility import heat_rejection_risks
from campus.analysis.failures import design_state
from campus.analysis.power import power_graph
from campus.analysis.redundancy_levels import (
    DOMAIN_OF_KIND,
    RANK,
    domain_level,
    redundancy_elements,
    single_failures,
)
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


def redundancy_check(snap: CampusSnapshot, include_single_points: bool = True) -> list[RedundancyFinding]:
    """Every element whose loss alone trips another or costs GPUs, the worst first. Without
    ``include_single_points`` only the cascades are listed."""
    findings: list[RedundancyFinding] = []
    # the sweep the pair search of the achieved level reads too (``redundancy_levels.single_failures``)
    for (kind, ident, name), (res, _) in zip(redundancy_elements(snap), single_failures(snap), strict=True):
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


def down_at_design(snap: CampusSnapshot) -> dict[str, dict]:
    """Racks already lost with nothing failed, per domain: ``power`` the racks without power at design load
    (an element offline or failed, a design-load trip, a rack with no feed), ``cooling`` the powered racks
    without cooling at design (a pool short, its units' supplies dead). Each ``{"racks": ids, "gpus": n}``;
    the declared redundancy check reports an error for a domain with racks down (``rules``)."""
    g = power_graph(snap)
    start = design_state(snap, g)
    gpus = g.rack_gpu_count
    dark = sorted(start.dark)
    uncooled = sorted(start.uncooled - start.dark)
    return {
        "power": {"racks": dark, "gpus": sum(gpus.get(r, 0) for r in dark)},
        "cooling": {"racks": uncooled, "gpus": sum(gpus.get(r, 0) for r in uncooled)},
    }


def single_points_by_domain(findings: list[RedundancyFinding]) -> dict[str, list[str]]:
    """Names of the elements found, per domain (``power``, ``cooling``)."""
    points: dict[str, list[str]] = {"power": [], "cooling": []}
    for f in findings:
        points[DOMAIN_OF_KIND[f.device_kind]].append(f.device_name)
    return points


# ---------------------------------------------------------------- declared redundancy


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def redundancy_declaration_checks(
    declared: Mapping[str, str],
    single_points: Mapping[str, Sequence[str]],
    failing_pools: Mapping[str, Sequence[Mapping[str, object]]] | None = None,
    checked_at_gpu_power_fraction: float = 1.0,
    down_at_design: Mapping[str, Mapping[str, object]] | None = None,
    heat_rejection_short: Sequence[Mapping[str, object]] | None = None,
    verified: Mapping[str, Mapping[str, object]] | None = None,
) -> list[dict[str, object]]:
    """Declared against achieved redundancy, per domain (``power``, ``cooling``).

    ``declared``: domain -> "N" | "N+1" | "2N" | "" (not declared); ``single_points``: domain -> names of
    the elements whose loss alone costs GPUs or trips another (``campus.analysis.redundancy``);
    ``failing_pools``: domain -> the pools of units short of the declared redundancy
    (``campus.analysis.cooling.pools_failing_redundancy`` as dicts: ``name``, ``heat_kw``,
    ``usable_capacity_kw``, ...; the summary's ``groups_failing_redundancy``). Achieved is ``N`` with a
    single point or a pool short of N+1, ``N+1`` when 2N is declared, nothing is a single point and a pool
    is short of 2N, ``2N`` when 2N is declared, nothing is a single point and the domain's pools were checked
    (``failing_pools`` names the domain) and none is short, else ``N+1`` (no single failure costs
    anything; power has no pool check, so its best is ``N+1``). One entry per domain: ``{field,
    domain, declared, achieved, severity, single_points, pools_failing, message}`` with severity ``error``
    (a redundant design declared and a single point found or a pool short of it; any declaration and a
    pool short of it), ``warning`` (N declared: its single points were asked for) or ``ok``.
    ``checked_at_gpu_power_fraction``: the load the pools were checked at (GPUs at this fraction of TDP;
    1.0 the design load), given back in every entry; the single points are always found at design load.
    ``down_at_design``: domain -> ``{"racks": ids, "gpus": n}`` already lost with nothing failed
    (``campus.analysis.redundancy.down_at_design``: without power, or powered and without cooling); a
    domain with racks down is an ``error`` whatever is declared, achieved ``N`` (the design does not carry
    its load even whole), and its entry gives ``racks_down_at_design`` and ``gpus_down_at_design``.
    ``verified``: domain -> the pair search's answer (``redundancy_levels.DomainLevel.as_dict``: its
    ``achieved``, ``pairs_count``, ``pairs``); for such a domain the rules above no longer stop at ``N+1``
    (single failures alone cannot tell 2N from N+1; the pairs can): achieved is the lower of the rules'
    level and the verified one, and a declared level above it is an ``error`` naming the pairs.
    """
    out: list[dict[str, object]] = []
    for domain in ("power", "cooling"):
        level = declared.get(domain) or ""
        points = list(single_points.get(domain, ()))
        pools = [dict(p) for p in (failing_pools or {}).get(domain, ())]
        # single failures alone cannot tell 2N from N+1; a domain whose pools were checked at the declared
        # 2N (cooling: every pool of units and every plant loop with the larger half out) can
        pools_checked = domain in (failing_pools or {})
        if points:
            achieved = "N"
        elif pools:
            achieved = "N+1" if level == "2N" else "N"
        elif level == "2N" and pools_checked:
            achieved = "2N"
        else:
            achieved = "N+1"
        pairs_part = ""
        check = (verified or {}).get(domain)
        if check is not None:
            if not points and not pools and check.get("racks_counted"):
                achieved = "2N"  # the pair search decides between N+1 and 2N (when it had racks to judge)
            achieved = min(achieved, str(check["achieved"]), key=RANK.__getitem__)
            if RANK[achieved] < RANK.get(level, -1) and not points and not pools:
                listed = list(check.get("pairs") or ())  # type: ignore[call-overload]
                count = int(check.get("pairs_count", len(listed)) or 0)  # type: ignore[call-overload]
                named = ", ".join(
                    f'"{p["maintenance"]["name"]}" out, then "{p["failure"]["name"]}" failed'
                    for p in listed[:3]
                ) + (f" and {count - 3} more" if count > 3 else "")
                pairs_part = (
                    f"{_count(count, 'pair', 'pairs')} of elements cost GPUs (one out for maintenance, then a "
                    f"single failure: {named})"
                )
        field = f"campus.{domain}_redundancy"
        shown = ", ".join(f'"{p}"' for p in points[:5]) + (
            f" and {len(points) - 5} more" if len(points) > 5 else ""
        )
        short = ""
        if pools:
            named = ", ".join(
                f'"{p["name"]}" ({p["heat_kw"]:,.0f} kW on {p["usable_capacity_kw"]:,.0f} kW usable)'
                for p in pools[:5]
            ) + (f" and {len(pools) - 5} more" if len(pools) > 5 else "")
            short = f"{_count(len(pools), 'pool', 'pools')} of units short of {level or 'N+1'} ({named})"
        if not level:
            severity = "ok"
            message = f"not declared; achieved {achieved}" + (
                f" ({len(points)} single points)" if points else ""
            )
            if short:
                message += f"; {short}"
        elif level == "N":
            severity = "error" if pools else ("warning" if points else "ok")
            parts = []
            if pools:
                parts.append(short)
            if points:
                parts.append(
                    f"{_count(len(points), 'single point', 'single points')} of failure, as an N design has ({shown})"
                )
            message = (
                "declared N: " + "; ".join(parts)
                if parts
                else "declared N; no single point of failure found (achieved N+1 or better)"
            )
        else:
            severity = "error" if points or pools or pairs_part else "ok"
            parts = []
            if points:
                parts.append(f"{_count(len(points), 'single point', 'single points')} of failure ({shown})")
            if pools:
                parts.append(short)
            if pairs_part:
                parts.append(pairs_part)
            message = (
                f"declared {level}, achieved {achieved}: " + "; ".join(parts)
                if parts
                else f"declared {level}; no single point of failure found"
            )
        down = (down_at_design or {}).get(domain) or {}
        down_racks = list(down.get("racks", ()))  # type: ignore[call-overload]
        if down_racks:
            what = "without power" if domain == "power" else "without cooling"
            achieved, severity = "N", "error"
            message = (
                f"{_count(len(down_racks), 'rack', 'racks')} ({down.get('gpus', 0):,} GPUs) already {what} "
                f"at design, nothing failed; " + message
            )
        short_plants = [dict(r) for r in (heat_rejection_short or ())] if domain == "cooling" else []
        if short_plants:
            achieved, severity = "N", "error"
            named = ", ".join(f'"{r["plant"]}"' for r in short_plants[:5]) + (
                f" and {len(short_plants) - 5} more" if len(short_plants) > 5 else ""
            )
            message = (
                f"{_count(len(short_plants), 'plant', 'plants')} cannot reject the heat in some hours of the "
                f"site's weather ({named}), nothing failed; " + message
            )
        out.append(
            {
                "heat_rejection_short": short_plants,
                "field": field,
                "domain": domain,
                "declared": level,
                "achieved": achieved,
                "severity": severity,
                "single_points": points,
                "pools_failing": pools,
                "checked_at_gpu_power_fraction": checked_at_gpu_power_fraction,
                "racks_down_at_design": down_racks,
                "gpus_down_at_design": int(down.get("gpus", 0) or 0),  # type: ignore[call-overload]
                "message": message,
            }
        )
    return out


def design_redundancy(snap, findings=None) -> list[dict[str, object]]:
    """The design check of a campus snapshot's declared ``power_redundancy`` and ``cooling_redundancy``
    against its topology: every element failed alone (``campus.analysis.redundancy.redundancy_check``,
    the core of impact mode), the single points sorted by domain, then ``redundancy_declaration_checks``.
    ``findings``: an earlier ``redundancy_check`` of the same snapshot, to reuse."""
    if findings is None:
        findings = redundancy_check(snap)
    pools = {"cooling": [p.as_dict() for p in pools_failing_redundancy(snap)]}
    return snapshot_declaration_checks(snap, single_points_by_domain(findings), pools)


def snapshot_declaration_checks(
    snap: CampusSnapshot, single_points: Mapping[str, Sequence[str]], failing_pools: Mapping
) -> list[dict[str, object]]:
    """``redundancy_declaration_checks`` of the snapshot's declared levels, with what is down at design
    and the plants its weather leaves short of heat rejection (``facility.heat_rejection_risks``)."""
    declared = {"power": snap.power_redundancy, "cooling": snap.cooling_redundancy}
    return redundancy_declaration_checks(
        declared,
        single_points,
        failing_pools,
        down_at_design=down_at_design(snap),
        heat_rejection_short=heat_rejection_risks(snap),
        verified={d: domain_level(snap, d).as_dict() for d in ("power", "cooling")},
    )
