"""Each collective by hand on small topologies (alpha-beta model; Thakur, Rabenseifner and Gropp 2005)."""

import math

import pytest

from campus.analysis.catalog import catalog_specs
from campus.analysis.training.cluster import BUS_EFFICIENCY, levels, reference_pool, tier_counts
from campus.analysis.training.collectives import (
    Level,
    all_reduce_s,
    all_to_all_levels_s,
    gather_or_scatter_s,
    in_network_all_reduce_s,
    p2p_s,
    ring_all_reduce_s,
    tree_all_reduce_s,
)

GB = 1e9
H100 = catalog_specs()["gpus"]["h100-sxm"]


def test_ring_all_reduce_of_1_gb_over_4_ranks_on_100_gb_s_links():
    # 2 (n-1) alpha + 2 (n-1)/n S/B = 6 x 10 us + 1.5 x 1 GB / 100 GB/s = 60 us + 15 ms
    assert ring_all_reduce_s(4, 1 * GB, 100 * GB, 10e-6) == pytest.approx(0.01506)


def test_tree_all_reduce_of_8_ranks_takes_three_latency_steps_each_way():
    # 2 ceil(log2 8) alpha + 2 S/B = 6 x 5 us + 2 x 8 MB / 50 GB/s
    assert tree_all_reduce_s(8, 8e6, 50 * GB, 5e-6) == pytest.approx(30e-6 + 320e-6)


def test_in_network_reduction_sends_each_byte_once():
    # 2 h alpha + S/B: 3 switch tiers, 1 GB at 50 GB/s
    assert in_network_all_reduce_s(1024, 1 * GB, 50 * GB, 1e-6, 3) == pytest.approx(6e-6 + 0.02)


def test_point_to_point():
    assert p2p_s(100e6, 50 * GB, 5e-6) == pytest.approx(5e-6 + 2e-3)


def test_one_rank_moves_nothing():
    assert ring_all_reduce_s(1, GB, GB, 1.0) == 0.0
    assert all_reduce_s([Level("x", 1, GB, 1.0)], GB)[0] == 0.0


def test_best_picks_tree_for_small_messages_and_ring_for_large():
    lv = Level("island", 1024, 50 * GB, 5e-6)
    small_t, _ = all_reduce_s([lv], 1e3)
    assert small_t == pytest.approx(tree_all_reduce_s(1024, 1e3, 50 * GB, 5e-6))
    # on 8 ranks the ring's 2 (n-1)/n = 1.75 beats the tree's 2 once the bytes outweigh 8 more latencies
    few = Level("island", 8, 50 * GB, 5e-6)
    big_t, _ = all_reduce_s([few], 10 * GB)
    assert big_t == pytest.approx(ring_all_reduce_s(8, 10 * GB, 50 * GB, 5e-6))


def test_hierarchical_all_reduce_of_2_nodes_of_8_by_hand():
    # reduce-scatter inside the node (7 alpha1 + 7/8 S/B1), ring all-reduce of S/8 across the 2 nodes
    # (2 alpha2 + 2 x 1/2 x S/8 / B2), all-gather inside the node (the same as the reduce-scatter)
    s, b1, b2, a1, a2 = 1 * GB, 360 * GB, 40 * GB, 2e-6, 6e-6
    lv = [Level("scale-up", 8, b1, a1), Level("island", 2, b2, a2)]
    t, by = all_reduce_s(lv, s, "ring")
    inside = 2 * (7 * a1 + 7 / 8 * s / b1)
    across = 2 * a2 + 2 * 0.5 * (s / 8) / b2
    assert by["scale-up"] == pytest.approx(inside)
    assert by["island"] == pytest.approx(across)
    assert t == pytest.approx(inside + across)


def test_hierarchical_reduce_scatter_by_hand():
    s = 8 * GB
    lv = [Level("scale-up", 4, 100 * GB, 0.0), Level("island", 4, 10 * GB, 0.0)]
    t, _ = gather_or_scatter_s(lv, s)
    assert t == pytest.approx(3 / 4 * s / (100 * GB) + 3 / 4 * (s / 4) / (10 * GB))


def test_all_to_all_inside_one_level_by_hand():
    # (n-1) alpha + (n-1)/n S/B
    t, _ = all_to_all_levels_s([Level("scale-up", 8, 100 * GB, 1e-6)], 1 * GB)
    assert t == pytest.approx(7e-6 + 7 / 8 * 0.01)


def test_all_to_all_across_two_levels_sends_the_far_share_over_the_slow_links():
    # 16 ranks, 8 per node: 7/16 of the data stays in the node, 8/16 crosses the network
    lv = [Level("scale-up", 8, 100 * GB, 0.0), Level("island", 2, 10 * GB, 0.0)]
    t, by = all_to_all_levels_s(lv, 1.6 * GB)
    assert by["scale-up"] == pytest.approx(7 / 16 * 1.6 * GB / (100 * GB))
    assert by["island"] == pytest.approx(8 / 16 * 1.6 * GB / (10 * GB))


def test_groups_land_on_the_tiers_their_stride_reaches():
    pool = reference_pool(H100, 4096, island_gpus=1024, oversubscription=4.0)
    assert tier_counts(pool, 8, 1) == {"scale-up": 8}  # TP8 inside the server
    assert tier_counts(pool, 16, 8) == {"island": 16}  # PP16 over 128 GPUs: one island
    assert tier_counts(pool, 32, 128) == {"island": 8, "campus": 4}  # DP32 stride 128: 8 per island
    assert tier_counts(pool, 4, 2) == {"scale-up": 4}
    assert tier_counts(pool, 8, 2) == {"scale-up": 4, "island": 2}


def test_levels_carry_nvlink_and_nic_bandwidth_and_the_oversubscription():
    pool = reference_pool(H100, 4096, island_gpus=1024, oversubscription=4.0)
    lv = {x.name: x for x in levels(pool, [(8, 1), (32, 128)])}
    assert lv["scale-up"].bandwidth_bytes_s == pytest.approx(
        450 * GB * BUS_EFFICIENCY
    )  # NVLink 4 per direction
    assert lv["island"].bandwidth_bytes_s == pytest.approx(50 * GB * BUS_EFFICIENCY)  # 400 Gb/s
    assert lv["campus"].bandwidth_bytes_s == pytest.approx(50 * GB * BUS_EFFICIENCY / 4)
    assert lv["scale-up"].in_network  # NVLink SHARP on the H100's NVSwitch
    assert math.isclose(lv["island"].ranks * lv["campus"].ranks, 32)
