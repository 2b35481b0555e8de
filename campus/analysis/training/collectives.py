"""Time of one collective from bandwidth, latency, message size and the levels it crosses.

The alpha-beta (Hockney) model: a step costs a latency alpha plus bytes / bandwidth. For n ranks and a
message of S bytes per rank, each rank on a link of B bytes/s (Thakur, Rabenseifner and Gropp, "Optimization
of Collective Communication Operations in MPICH", IJHPCA 19(1), 2005; Patarasuk and Yuan, "Bandwidth optimal
all-reduce algorithms for clusters of workstations", JPDC 69(2), 2009):

    ring all-reduce       2 (n-1) alpha + 2 (n-1)/n S / B   (reduce-scatter then all-gather: the bandwidth optimum)
    ring reduce-scatter   (n-1) alpha + (n-1)/n S / B      (all-gather the same)
    tree all-reduce       2 ceil(log2 n) alpha + 2 S / B    (NCCL's pipelined double binary tree: log latency,
                                                           each rank sends and receives S twice; Jeaugey,
                                                           NVIDIA blog "Massively scale your deep learning
                                                           training with NCCL 2.4", 2019)
    in-network reduction  2 h alpha + S / B                (SHARP: each rank sends S once and receives the
                                                           reduced S once, the switches add; Graham et al.,
                                                           "Scalable Hierarchical Aggregation Protocol",
                                                           COMHPC 2016; h the switch tiers crossed)
    all-to-all            (n-1) alpha + (n-1)/n S / B      (pairwise exchange, S the bytes one rank sends)
    point-to-point        alpha + S / B

A group spanning several levels (scale-up domain, island, campus) is reduced hierarchically: reduce-scatter
up the levels, all-reduce across the top, all-gather back down; each level moves the share of S that is left
after the levels below it (level i moves S / (n_1 ... n_{i-1})).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ALGORITHMS = ("ring", "tree", "in_network", "best")


@dataclass(frozen=True)
class Level:
    """One level a communication group crosses: ``ranks`` members of the group there, each on a link of
    ``bandwidth_bytes_s`` (per direction, after any oversubscription), ``alpha_s`` per step, ``hops`` switch
    tiers, and whether its switches reduce in the network (SHARP / NVLink SHARP)."""

    name: str
    ranks: float
    bandwidth_bytes_s: float
    alpha_s: float
    hops: int = 1
    in_network: bool = False


def ring_all_reduce_s(n: float, size_bytes: float, bw: float, alpha_s: float) -> float:
    if n <= 1:
        return 0.0
    return 2.0 * (n - 1) * alpha_s + 2.0 * (n - 1) / n * size_bytes / bw


def ring_reduce_scatter_s(n: float, size_bytes: float, bw: float, alpha_s: float) -> float:
    if n <= 1:
        return 0.0
    return (n - 1) * alpha_s + (n - 1) / n * size_bytes / bw


ring_all_gather_s = ring_reduce_scatter_s


def tree_all_reduce_s(n: float, size_bytes: float, bw: float, alpha_s: float) -> float:
    if n <= 1:
        return 0.0
    return 2.0 * math.ceil(math.log2(n)) * alpha_s + 2.0 * size_bytes / bw


def in_network_all_reduce_s(n: float, size_bytes: float, bw: float, alpha_s: float, hops: int) -> float:
    if n <= 1:
        return 0.0
    return 2.0 * hops * alpha_s + size_bytes / bw


def all_to_all_s(n: float, size_bytes: float, bw: float, alpha_s: float) -> float:
    if n <= 1:
        return 0.0
    return (n - 1) * alpha_s + (n - 1) / n * size_bytes / bw


def p2p_s(size_bytes: float, bw: float, alpha_s: float) -> float:
    return alpha_s + size_bytes / bw


def _level_all_reduce(level: Level, size: float, algorithm: str) -> tuple[float, str]:
    n, bw, a = level.ranks, level.bandwidth_bytes_s, level.alpha_s
    options = {"ring": ring_all_reduce_s(n, size, bw, a), "tree": tree_all_reduce_s(n, size, bw, a)}
    if level.in_network:
        options["in_network"] = in_network_all_reduce_s(n, size, bw, a, level.hops)
    if algorithm != "best":
        return options.get(algorithm, options["ring"]), algorithm if algorithm in options else "ring"
    best = min(options, key=options.get)
    return options[best], best


def all_reduce_s(
    levels: list[Level], size_bytes: float, algorithm: str = "best"
) -> tuple[float, dict[str, float]]:
    """All-reduce of ``size_bytes`` per rank over ``levels`` (innermost first): the total and each level's
    share. One level: the algorithm's own formula (``best``: the fastest the level offers, as NCCL tunes).
    Several: reduce-scatter up to the top level, all-reduce there, all-gather back down."""
    levels = [lv for lv in levels if lv.ranks > 1]
    if not levels:
        return 0.0, {}
    if len(levels) == 1:
        t, _ = _level_all_reduce(levels[0], size_bytes, algorithm)
        return t, {levels[0].name: t}
    by_level: dict[str, float] = {}
    size = size_bytes
    for lv in levels[:-1]:
        t = 2.0 * ring_reduce_scatter_s(lv.ranks, size, lv.bandwidth_bytes_s, lv.alpha_s)
        by_level[lv.name] = by_level.get(lv.name, 0.0) + t
        size /= lv.ranks
    top = levels[-1]
    t, _ = _level_all_reduce(top, size, algorithm)
    by_level[top.name] = by_level.get(top.name, 0.0) + t
    return sum(by_level.values()), by_level


def gather_or_scatter_s(levels: list[Level], size_bytes: float) -> tuple[float, dict[str, float]]:
    """Reduce-scatter (or all-gather) of ``size_bytes`` per rank over ``levels``, hierarchically: half of a
    hierarchical all-reduce's bandwidth term at every level."""
    by_level: dict[str, float] = {}
    size = size_bytes
    for lv in levels:
        if lv.ranks <= 1:
            continue
        by_level[lv.name] = by_level.get(lv.name, 0.0) + ring_reduce_scatter_s(
            lv.ranks, size, lv.bandwidth_bytes_s, lv.alpha_s
        )
        size /= lv.ranks
    return sum(by_level.values()), by_level


def all_to_all_levels_s(levels: list[Level], size_bytes: float) -> tuple[float, dict[str, float]]:
    """All-to-all of ``size_bytes`` per rank over a group spanning ``levels``: the share bound for the ranks
    of each level goes over that level's links (a share (n_i - 1)/n_i of what is left reaches beyond the
    levels below), the levels running one after another."""
    n_total = math.prod(lv.ranks for lv in levels) if levels else 1.0
    by_level: dict[str, float] = {}
    inside = 1.0
    for lv in levels:
        if lv.ranks <= 1:
            continue
        within = inside * lv.ranks
        share = (within - inside) / n_total  # fraction of the data bound for this level's other members
        by_level[lv.name] = (lv.ranks - 1) * lv.alpha_s + share * size_bytes / lv.bandwidth_bytes_s
        inside = within
    return sum(by_level.values()), by_level
