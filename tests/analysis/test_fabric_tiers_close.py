"""Fat-tree tiers that close: the uplinks an island sends to a campus layer take ports of its top tier, and
every switch at every tier stays within its radix.

Hand figures: a non-blocking leaf of radix k gives k/2 ports down and k/2 up; in two tiers every leaf
reaches every spine, so there are at most k/2 spines (one per leaf up-port), and every spine reaches every
leaf; in three, at most (k/2)² cores (Al-Fares, Loukissas and Vahdat, SIGCOMM 2008, §2.2: k²/2 end
points in two tiers, k³/4 in three).
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.fabric import (
    closes,
    design_campus_fabric,
    design_fabric,
    max_endpoints,
    plan_campus,
    pod_tiers,
    top_switches_reachable,
)
from tests.analysis.builders import QM9700, replace

SN5600 = replace(QM9700, slug="sn5600", radix=128)


def test_an_8192_gpu_island_on_radix_128_with_uplinks_at_7_to_1_takes_three_tiers():
    # 8,192 end points, 7:1 above the island: U = ⌈8,192 / 7⌉ = 1,171 uplinks.
    # Two tiers: 8,192 / 64 = 128 leaves; the spines would take 8,192 leaf cables + 1,171 uplinks =
    # 9,363 ports = ⌈9,363 / 128⌉ = 74 spines, but each leaf has 64 up-ports and reaches only 64 of them.
    # Three tiers: 128 leaves; spines 64 down / 64 up: 8,192 / 64 = 128; cores take 8,192 + 1,171 ports:
    # ⌈9,363 / 128⌉ = 74 ≤ 64 × 64 = 4,096 reachable.
    d = design_fabric(8192, SN5600, uplinks=1171)
    assert d.tiers == 3
    assert d.switches_per_tier == (128, 128, 74)
    assert d.switches == 330
    assert [layer.links for layer in d.layers] == [8192, 8192, 8192]
    assert not closes(8192, 128, 2, uplinks=1171)
    # alone (no uplinks) it is exactly the two-tier limit k²/2: 128 leaves, 64 spines
    assert design_fabric(8192, SN5600).switches_per_tier == (128, 64)


def test_the_two_tier_island_with_uplinks_at_7_to_1_on_radix_128_holds_7168():
    # 7,168 end points: 7,168 / 64 = 112 leaves, U = 7,168 / 7 = 1,024; the spines take 7,168 + 1,024 =
    # 8,192 ports = 64 spines, one per leaf up-port: every leaf reaches every spine, and a spine's 128
    # ports are 112 down (one per leaf) + 16 up. One more end point: U = 1,025, 8,194 ports > 64 × 128.
    assert max_endpoints(2, 128, uplink_oversubscription=7.0) == 7168
    d = design_fabric(7168, SN5600, uplinks=1024)
    assert d.tiers == 2 and d.switches_per_tier == (112, 64)
    assert pod_tiers(7169, 128, uplinks=math.ceil(7169 / 7)) == 3
    # radix 64 (Quantum-2): 32 × 56 = 1,792 in two tiers, 65,536 × 7/8 = 57,344 in three
    assert max_endpoints(2, 64, uplink_oversubscription=7.0) == 1792
    assert max_endpoints(3, 64, uplink_oversubscription=7.0) == 57344


def test_radix_64_reaches_65536_in_three_tiers_alone_or_as_islands_sharing_a_core():
    # k³/4 = 65,536: 2,048 leaves, 2,048 spines, 1,024 cores, one non-blocking fat tree
    assert design_fabric(65_536, QM9700).tiers == 3
    # as 8 islands of 8,192 at 7:1: an island with 1,171 uplinks needs three tiers itself, a super-spine
    # above makes four (old: 8 × 147 cores + 147 super-spines); sharing the cores keeps three, with
    # 8 × (256 + 256) + 65,536 / 64 = 5,120 switches
    c = design_campus_fabric([8192] * 8, QM9700)
    assert c.tiers == 3 and c.inter_island.shared
    assert c.switches == 8 * (256 + 256) + 1024
    plan = plan_campus([8192] * 8, 64, 7.0, allow_shared=False)
    assert plan.tiers == 4 and plan.switches > c.switches


def test_a_campus_layer_over_more_islands_than_the_radix_takes_a_second_tier():
    # 100 islands of 1,024 on radix 64: a super-spine has 64 ports, so it cannot reach 100 islands.
    # Campus layer as a fat tree of the islands: 100 × ⌈1,024 / 7⌉ = 100 × 147 = 14,700 uplinks on
    # 14,700 / 32 = 460 (⌈459.4⌉) lower and ⌈14,700 / 64⌉ = 230 upper switches.
    plan = plan_campus([1024] * 100, 64, 7.0, allow_shared=False)
    assert plan.campus_tiers == 2
    assert plan.campus_switches_per_tier == (460, 230)


RADIX = st.sampled_from([8, 16, 32, 64, 128])


@settings(max_examples=300, deadline=None)
@given(
    endpoints=st.integers(1, 600_000),
    radix=RADIX,
    leaf_over=st.sampled_from([1.0, 1.5, 3.0]),
    up_ratio=st.one_of(st.none(), st.floats(1.0, 32.0)),
)
def test_every_tier_holds_its_cables_within_its_radix_and_the_top_is_reachable(
    endpoints, radix, leaf_over, up_ratio
):
    uplinks = 0 if up_ratio is None else math.ceil(endpoints / up_ratio)
    switch = replace(QM9700, radix=radix)
    d = design_fabric(endpoints, switch, oversubscription=leaf_over, uplinks=uplinks)
    counts, links = d.switches_per_tier, [layer.links for layer in d.layers]
    # port conservation at every tier: cables down + cables up <= radix x switches
    for t, n in enumerate(counts):
        down = links[t]
        up = links[t + 1] if t + 1 < len(links) else uplinks
        assert down + up <= radix * n
    # a leaf uses at most its down-ports for end points when it has a tier above
    if d.tiers > 1:
        assert endpoints <= counts[0] * d.leaf_down_ports
        # the top tier has no more switches than the tier below can reach, and one tier fewer would not close
        assert counts[-1] <= top_switches_reachable(d.tiers, radix, d.leaf_down_ports)
        assert not closes(endpoints, radix, d.tiers - 1, leaf_over, uplinks)
    else:
        assert endpoints + uplinks <= radix
    # bisection as declared: half the end points at port speed, over the leaf's oversubscription
    assert d.bisection_tbps == endpoints * switch.port_speed_gbps / 2 / leaf_over / 1000


@settings(max_examples=150, deadline=None)
@given(
    islands=st.lists(st.integers(1, 40_000), min_size=2, max_size=12),
    radix=RADIX,
    ratio=st.floats(1.0, 16.0),
)
def test_a_campus_plan_closes_and_never_takes_more_tiers_than_either_way(islands, radix, ratio):
    plan = plan_campus(islands, radix, ratio)
    forced = plan_campus(islands, radix, ratio, allow_shared=False)
    assert (plan.tiers, plan.switches) <= (forced.tiers, forced.switches)
    for e, t, u in zip(islands, plan.island_tiers, plan.island_uplinks, strict=True):
        if plan.shared:
            assert u == e  # non-blocking above: every end point's cable goes up
        else:
            assert u == math.ceil(e / ratio)
            assert closes(e, radix, t, uplinks=u)
    if not plan.shared:
        # every switch of the campus layer's first tier reaches every island (at most k per tier)
        assert len(islands) <= radix * (radix // 2) ** (plan.campus_tiers - 1)
    counts = plan.campus_switches_per_tier
    assert sum(plan.island_uplinks) <= radix * counts[-1]
    assert plan.tiers == max(plan.island_tiers) + plan.campus_tiers
