"""Fat-tree sizing, cable media by topology, and counting the fabric the inventory holds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.fabric import (
    design_campus_fabric,
    design_fabric,
    design_inter_island,
    fabric_from_inventory,
    medium_for_length,
    tiers_for,
)
from tests.analysis.builders import (
    H100_NODE,
    MEDIA,
    QM9700,
    LinkSnap,
    PodSnap,
    SwitchSnap,
    campus,
    rack,
    replace,
)


@pytest.mark.parametrize(
    ("length_m", "medium"),
    [
        (0.5, "dac"),
        (3.0, "dac"),
        (3.1, "aec"),
        (7.0, "aec"),
        (30, "sr"),
        (50, "sr"),
        (51, "dr"),
        (500, "dr"),
        (1500, "fr"),
        (2000, "fr"),
        (2001, "zr"),
    ],
)
def test_medium_is_the_cheapest_that_reaches_the_length(length_m, medium):
    assert medium_for_length(length_m) == medium


def test_radix_64_reaches_k2_over_2_in_two_tiers_and_k3_over_4_in_three():
    assert tiers_for(64, 64) == 1
    assert tiers_for(2048, 64) == 2  # 64²/2
    assert tiers_for(2049, 64) == 3
    assert tiers_for(65_536, 64) == 3  # 64³/4
    assert tiers_for(65_537, 64) == 4


def test_two_tier_rail_optimized_design_counts_switches_links_and_optics():
    d = design_fabric(2048, QM9700, "rail-optimized", media=MEDIA)
    assert d.tiers == 2
    assert d.switches_per_tier == (64, 32)  # 2048/32 leaves; 64 x 32 up-ports / 64
    assert d.links_by_medium == {"sr": 4096}
    assert d.transceivers == 8192
    assert d.copper_share == 0.0
    # every port optical: 96 x 1,500 W; plus node-side modules 2,048 x 12 W
    assert d.switch_power_kw == pytest.approx(96 * 1.5)
    assert d.transceiver_power_kw == pytest.approx(2048 * 0.012)
    assert d.bisection_tbps == pytest.approx(2048 * 400 / 2 / 1000)


def test_middle_of_rack_puts_node_links_on_copper():
    d = design_fabric(2048, QM9700, "middle-of-rack", media=MEDIA)
    assert d.links_by_medium == {"dac": 2048, "sr": 2048}
    assert d.copper_share == pytest.approx(0.5)
    assert d.transceivers == 4096
    # leaves: half their ports copper -> 747 + 0.5 x 753 W; spines all optical
    assert d.switch_power_kw == pytest.approx((64 * (747 + 0.5 * 753) + 32 * 1500) / 1000)
    assert d.transceiver_power_kw == 0.0
    d3 = design_fabric(65_536, QM9700, "middle-of-rack")
    assert d3.copper_share == pytest.approx(
        1 / 3
    )  # SemiAnalysis 2024-06, middle-of-rack: ~25-33% of the GPU fabric


def test_three_tier_fat_tree_has_five_k2_over_4_switches():
    d = design_fabric(65_536, QM9700, "rail-optimized")
    assert d.switches_per_tier == (2048, 2048, 1024)
    assert d.switches == 5 * 64 * 64 // 4


def test_dual_port_nics_halve_node_side_transceivers():
    single = design_fabric(2048, QM9700, "rail-optimized")
    dual = design_fabric(2048, QM9700, "rail-optimized", nic_kind="dual-port")
    assert single.transceivers - dual.transceivers == pytest.approx(1024)


def test_leaf_oversubscription_trades_up_ports_for_end_points():
    d = design_fabric(4096, QM9700, "rail-optimized", oversubscription=3.0)
    assert d.leaf_down_ports == 48
    assert d.switches_per_tier[0] == 4096 // 48 + 1
    assert d.bisection_tbps == pytest.approx(4096 * 0.4 / 2 / 3)


def test_design_rejects_bad_inputs_naming_the_field():
    with pytest.raises(ValueError, match="^gpus:"):
        design_fabric(0, QM9700)
    with pytest.raises(ValueError, match="^oversubscription:"):
        design_fabric(10, QM9700, oversubscription=0.5)
    with pytest.raises(ValueError, match="^topology:"):
        design_fabric(10, QM9700, topology="ring")


def test_inter_island_layer_is_oversubscribed_by_the_ratio():
    inter = design_inter_island([14_000, 14_000], QM9700, oversubscription=7.0)
    assert inter.uplinks == 4000
    assert inter.switches == 63  # ceil(4000 / 64)
    assert inter.medium == "fr"
    assert design_inter_island([1000], QM9700).switches == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300_000), st.integers(1, 300_000), st.sampled_from([32, 64, 128]))
def test_fabric_tiers_and_switches_grow_monotonically_with_gpus(a, b, radix):
    lo, hi = sorted((a, b))
    switch = replace(QM9700, radix=radix)
    small, large = design_fabric(lo, switch), design_fabric(hi, switch)
    assert small.tiers <= large.tiers
    assert small.switches <= large.switches
    assert small.links <= large.links
    if small.tiers == large.tiers:
        assert all(x <= y for x, y in zip(small.switches_per_tier, large.switches_per_tier, strict=True))
    assert large.max_endpoints >= hi


def _two_rack_pod():
    dual_node = replace(H100_NODE, slug="dual", nic_kind="dual-port")
    snap = campus(
        racks=(rack(1, 2, node="dgx-h100", pod_id=1), rack(2, 2, node="dual", pod_id=1)),
        pods=(PodSnap(1, "P1", "infiniband-ndr", "rail-optimized", 1.0, "qm9700", 1),),
        switches=(
            SwitchSnap(1, "leaf", 1, "leaf", "qm9700", 1, 1, None),
            SwitchSnap(2, "spine", 1, "spine", "qm9700", 1, 1, None),
        ),
        links=(
            LinkSnap(1, 1, "backend", "sr", 16, 20.0, 400.0, 1, None, 1),
            LinkSnap(2, 1, "backend", "sr", 16, 20.0, 400.0, 2, None, 1),
            LinkSnap(3, 1, "backend", "dac", 16, 2.0, 400.0, None, 1, 2),
        ),
    )
    return replace(snap, node_models={**snap.node_models, "dual": dual_node})


def test_inventory_count_matches_hand_tally():
    f = fabric_from_inventory(_two_rack_pod())
    assert f.tiers == 2
    assert f.switches == 2
    assert f.links_by_medium == {"sr": 32, "dac": 16}
    # rack 1: 16 node + 16 switch modules; rack 2 twin-port: 8 + 16; DAC none
    assert f.transceivers == 56
    assert f.copper_share == pytest.approx(16 / 48)
    leaf_w = 747 + (32 / 48) * (1500 - 747)
    assert f.switch_power_kw == pytest.approx((leaf_w + 747) / 1000)
    assert f.transceiver_power_kw == pytest.approx((16 + 8) * 12 / 1000)
    assert f.pods[0].gpus == 32
    assert f.pods[0].bisection_tbps == pytest.approx(32 * 0.4 / 2)


def _two_islands(oversubscription: float):
    """Two pods of 2 racks x 2 DGX H100 (32 GPUs, 32 NICs of 400G each); each pod's spine sends 5
    uplinks (ceil(32 / 7)) to one campus super-spine."""
    pods = tuple(
        PodSnap(p, f"P{p}", "infiniband-ndr", "rail-optimized", oversubscription, "qm9700", 1) for p in (1, 2)
    )
    racks = tuple(rack(r, 2, node="dgx-h100", pod_id=(r + 1) // 2) for r in (1, 2, 3, 4))
    switches = (
        SwitchSnap(1, "P1-leaf", 1, "leaf", "qm9700", 1, 1, None),
        SwitchSnap(2, "P1-spine", 1, "spine", "qm9700", 1, 1, None),
        SwitchSnap(3, "P2-leaf", 2, "leaf", "qm9700", 1, 1, None),
        SwitchSnap(4, "P2-spine", 2, "spine", "qm9700", 1, 1, None),
        SwitchSnap(5, "super", None, "super-spine", "qm9700", 1, 1, None),
    )
    links = (
        *(
            LinkSnap(r, (r + 1) // 2, "backend", "sr", 16, 20.0, 400.0, r, None, 1 + 2 * ((r - 1) // 2))
            for r in (1, 2, 3, 4)
        ),
        LinkSnap(11, 1, "backend", "sr", 32, 20.0, 400.0, None, 1, 2),
        LinkSnap(12, 2, "backend", "sr", 32, 20.0, 400.0, None, 3, 4),
        LinkSnap(21, None, "backend", "fr", 5, 600.0, 400.0, None, 2, 5),
        LinkSnap(22, None, "backend", "fr", 5, 600.0, 400.0, None, 4, 5),
    )
    return campus(racks=racks, pods=pods, switches=switches, links=links)


def test_pod_bisection_is_full_inside_the_island_and_oversubscription_applies_above_it():
    # Inside a non-blocking island half the 32 NICs send to the other half at 400G:
    # 32 x 400 Gb/s / 2 = 6.4 Tb/s, whatever the ratio above the island (it was 6.4 / 7 = 0.91).
    f = fabric_from_inventory(_two_islands(7.0))
    by_name = {p.name: p for p in f.pods}
    assert by_name["P1"].bisection_tbps == pytest.approx(6.4)
    assert by_name["P2"].bisection_tbps == pytest.approx(6.4)
    # Above the islands: 2 x 5 uplinks of 400G into the super-spine, half each way = 2.0 Tb/s
    # (the 7:1 ratio: 64 NICs x 400G / 7 / 2 = 1.83, rounded up to whole uplinks).
    assert by_name["campus"].bisection_tbps == pytest.approx(2.0)
    assert fabric_from_inventory(_two_islands(1.0)).pods[0].bisection_tbps == pytest.approx(6.4)


def test_pod_bisection_counts_each_nic_at_its_own_speed():
    # A100 servers have 200G NICs: 2 racks x 2 servers x 8 NICs x 200 Gb/s / 2 = 3.2 Tb/s on 400G switches.
    snap = _two_islands(7.0)
    racks = tuple(replace(r, nodes=(("dgx-a100", 2),)) for r in snap.racks)
    f = fabric_from_inventory(replace(snap, racks=racks))
    assert {p.name: p.bisection_tbps for p in f.pods}["P1"] == pytest.approx(3.2)


def test_other_networks_are_counted_separately():
    snap = _two_rack_pod()
    snap = replace(snap, links=snap.links + (LinkSnap(9, 1, "frontend", "dac", 4, 2.0, 100.0, 1, None, 1),))
    assert fabric_from_inventory(snap).links == 48
    assert fabric_from_inventory(snap, "frontend").links == 4


def test_campus_design_adds_the_inter_island_tier_and_its_switches():
    # Islands of 1,792 at 8:1 on radix 64: 1,792 / 8 = 224 uplinks each; leaves 1,792 / 32 = 56; the spines
    # take 1,792 leaf cables + 224 uplinks = 2,016 ports: ⌈2,016 / 64⌉ = 32 spines, no more than the 32 a
    # leaf's 32 up-ports reach. Campus: 448 uplinks / 64 = 7 super-spines. 3 tiers.
    c = design_campus_fabric([1792, 1792], QM9700, inter_island_oversubscription=8.0)
    assert c.tiers == 3
    assert c.inter_island.uplinks == 448 and not c.inter_island.shared
    assert [i.switches_per_tier for i in c.islands] == [(56, 32), (56, 32)]
    assert c.switches == 2 * (56 + 32) + 7
    assert c.links_by_medium == {"sr": 4 * 1792, "fr": 448}
    single = design_campus_fabric([2048], QM9700)
    assert single.tiers == 2 and single.inter_island.switches == 0


def test_islands_at_the_two_tier_limit_share_a_non_blocking_core():
    # Islands of 2,048 = k²/2 with 256 uplinks at 8:1 would need ⌈(2,048 + 256) / 64⌉ = 36 spines, but a
    # leaf's 32 up-ports reach only 32: each island needs a third tier, and a super-spine above makes 4.
    # One 3-tier fat tree of 4,096 end points is 3 tiers and fewer switches: per island 2,048 / 32 = 64
    # leaves and 64 spines (32 down, 32 up: 2,048 cables up), shared cores 4,096 / 64 = 64.
    c = design_campus_fabric([2048, 2048], QM9700, inter_island_oversubscription=8.0)
    assert c.tiers == 3 and c.inter_island.shared
    assert [i.switches_per_tier for i in c.islands] == [(64, 64), (64, 64)]
    assert c.inter_island.switches_per_tier == (64,)
    assert c.switches == 2 * (64 + 64) + 64
    # the 4-tier way: islands of 64 + 64 + ⌈(2,048 + 256) / 64⌉ = 36, super-spines 512 / 64 = 8: 344 > 320
    assert c.switches < 2 * (64 + 64 + 36) + 8


def test_inventory_pod_reports_the_tiers_its_size_needs():
    assert fabric_from_inventory(_two_rack_pod()).pods[0].design_tiers == 1  # 32 end points, radix 64


def test_only_ports_in_use_are_cabled_and_small_islands_are_one_switch():
    # 100 end points on radix 64: 2 tiers; ⌈100 / 32⌉ = 4 leaves with 100 ports in use down, so 100 up
    # (non-blocking), not 4 × 32 = 128; spines ⌈100 / 64⌉ = 2.
    d = design_fabric(100, QM9700)
    assert d.switches_per_tier == (4, 2)
    assert [layer.links for layer in d.layers] == [100, 100]
    # 8 end points fit one switch: no spine and no switch-to-switch cable
    one = design_fabric(8, QM9700)
    assert one.tiers == 1 and one.switches_per_tier == (1,) and one.links == 8
    # with island uplinks: 64 + ⌈64 / 7⌉ = 74 ports > 64, so a leaf tier (2 leaves of 32) and
    # ⌈(64 + 10) / 64⌉ = 2 spines; 8 + ⌈8 / 7⌉ = 10 ports stay on one switch
    up = design_fabric(64, QM9700, uplinks=10)
    assert up.switches_per_tier == (2, 2) and [layer.links for layer in up.layers] == [64, 64]
    assert design_fabric(8, QM9700, uplinks=2).switches_per_tier == (1,)
