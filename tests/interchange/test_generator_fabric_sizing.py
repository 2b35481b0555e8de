"""The generated fabric follows each pod's end points, and the fabric analysis agrees with what was built.

Hand figures at radix k = 64 (Quantum-2 QM9700, infiniband-ndr), 8 NICs per HGX H100 server, one end point
per NIC port: a 2-tier non-blocking fat tree serves k²/2 = 2,048 end points, a leaf k/2 = 32 of them;
one switch serves up to k = 64. Non-blocking: a leaf cables as many ports up as it has in use down.
"""

import math
from collections import defaultdict

import pytest

from campus.analysis.fabric import fabric_from_inventory
from campus.interchange.generate import generate_spec
from campus.interchange.spec_snapshot import spec_snapshot


def _tiers_and_cables(spec: dict) -> tuple[dict[str, int], int, int]:
    switches: dict[str, int] = defaultdict(int)
    for s in spec["switches"]:
        switches[s["tier"]] += s["count"]
    node = sum(k["count"] for k in spec["links"] if "a_rack" in k)
    between = sum(k["count"] for k in spec["links"] if "a_rack" not in k)
    return dict(switches), node, between


@pytest.mark.parametrize(
    ("gpus", "switches", "between"),
    [
        # 8 GPUs = 8 end points ≤ 64: one switch, no spine, no switch-to-switch cable
        (8, {"leaf": 1}, 0),
        # 32 end points ≤ 64: one switch
        (32, {"leaf": 1}, 0),
        # 64 end points = k: one switch, every port down
        (64, {"leaf": 1}, 0),
        # 512 end points: 64 servers, 64 ports per rail = 2 leaves of 32 per rail × 8 rails = 16 leaves;
        # 512 uplinks (non-blocking) onto 512 / 64 = 8 spines
        (512, {"leaf": 16, "spine": 8}, 512),
        # 2,048 = k²/2 end points: 2,048 / 32 = 64 leaves, 2,048 uplinks onto 2,048 / 64 = 32 spines
        (2048, {"leaf": 64, "spine": 32}, 2048),
    ],
)
def test_a_lone_pod_has_the_fat_tree_its_end_points_need(gpus, switches, between):
    spec = generate_spec("F", gpus, fabric="infiniband-ndr", pod_max_gpus=gpus)
    got, node, up = _tiers_and_cables(spec)
    assert got == switches
    assert node == gpus
    assert up == between
    # the analysis of the generated inventory counts the same and expects the same tiers
    fabric = fabric_from_inventory(spec_snapshot(spec))
    (pod,) = fabric.pods
    assert pod.switches == sum(switches.values())
    assert pod.links == gpus + between
    assert pod.tiers == len(switches) == pod.design_tiers


def test_small_pods_of_a_campus_get_one_switch_each_and_their_uplinks():
    # 1,024 GPUs in pods of 8: 128 pods of 8 end points; each sends ⌈8 / 7⌉ = 2 uplinks (7:1), and
    # 8 + 2 = 10 ports fit one switch. Campus layer: one tier of radix 64 reaches at most 64 pods, so 128
    # take two (a fat tree with the pods as its end points): 256 uplinks on 256 / 32 = 8 lower super-spines
    # (32 down, 32 up) and 256 / 64 = 4 above them. Switches 128 + 8 + 4 = 140; cables 1,024 + 256 + 256.
    spec = generate_spec("F", 1024, fabric="infiniband-ndr", pod_max_gpus=8, oversubscription=7.0)
    assert len(spec["pods"]) == 128
    got, node, up = _tiers_and_cables(spec)
    assert got == {"leaf": 128, "super-spine": 8, "super-spine-2": 4}
    assert node == 1024 and up == 512
    fabric = fabric_from_inventory(spec_snapshot(spec))
    assert fabric.switches == 140 and fabric.links == 1536 and fabric.tiers == 3
    assert all(p.tiers == p.design_tiers == 1 for p in fabric.pods if p.pod_id is not None)


def test_a_pod_whose_uplinks_overflow_one_switch_gets_a_spine():
    # 64 end points + ⌈64 / 7⌉ = 10 uplinks = 74 > 64 ports: two tiers. Rail-optimized: one leaf per rail
    # (8 ports in use each), 64 uplinks; spines ⌈(64 + 10) / 64⌉ = 2. 33 such pods (2,112 GPUs, more than
    # one 2-tier tree's 2,048): campus layer ⌈33 × 10 / 64⌉ = 6 super-spines, 3 tiers; a shared core would
    # be 3 tiers too, with 33 cores instead of 6 super-spines.
    spec = generate_spec("F", 2112, fabric="infiniband-ndr", pod_max_gpus=64, oversubscription=7.0)
    got, node, up = _tiers_and_cables(spec)
    assert got == {"leaf": 33 * 8, "spine": 33 * 2, "super-spine": 6}
    assert node == 2112 and up == 33 * 64 + 33 * 10
    fabric = fabric_from_inventory(spec_snapshot(spec))
    assert all(p.tiers == p.design_tiers == 2 for p in fabric.pods if p.pod_id is not None)
    assert fabric.tiers == 3


def test_two_small_pods_share_one_spine_tier_rather_than_add_a_campus_layer():
    # 2 pods of 64 at 7:1 would be 2 tiers each (above) plus a super-spine: 3 tiers, 2 × (8 + 2) + 1 = 21
    # switches. 128 end points fit one 2-tier tree (≤ k²/2 = 2,048): the pods' 8 rail leaves each and
    # ⌈128 / 64⌉ = 2 spines shared by both, 18 switches, 2 tiers, non-blocking.
    spec = generate_spec("F", 128, fabric="infiniband-ndr", pod_max_gpus=64, oversubscription=7.0)
    got, node, up = _tiers_and_cables(spec)
    assert got == {"leaf": 16, "spine": 2}
    assert node == 128 and up == 128
    fabric = fabric_from_inventory(spec_snapshot(spec))
    assert fabric.tiers == 2
    assert all(p.tiers == p.design_tiers == 1 for p in fabric.pods if p.pod_id is not None)


def test_the_campus_layer_reports_its_real_oversubscription():
    # 4 islands of 1,600 GPUs at 7:1 on radix 64: 4 × ⌈1,600 / 7⌉ = 4 × 229 = 916 uplinks of 400G for
    # 6,400 end points of 400G: 6,400 / 916 = 6.9869 (the configured 7 less the rounding up).
    spec = generate_spec("F", 6400, fabric="infiniband-ndr", pod_max_gpus=1600, oversubscription=7.0)
    fabric = fabric_from_inventory(spec_snapshot(spec))
    (campus,) = [p for p in fabric.pods if p.pod_id is None]
    assert campus.oversubscription == pytest.approx(6400 / 916)
    assert math.ceil(1600 / 7) == 229
    # each island's spines take its 1,600 leaf cables and 229 uplinks: ⌈1,829 / 64⌉ = 29 switches, within
    # the 32 a leaf's up-ports reach; the campus layer ⌈916 / 64⌉ = 15: three tiers
    spines = [s["count"] for s in spec["switches"] if s["tier"] == "spine"]
    assert spines == [29] * 4
    assert [s["count"] for s in spec["switches"] if s["tier"] == "super-spine"] == [15]
    assert fabric.tiers == 3


def test_islands_that_would_need_a_fourth_tier_share_a_non_blocking_core():
    # 4 islands of 8,192 at 7:1 on radix 64: an island with its ⌈8,192 / 7⌉ = 1,171 uplinks needs three
    # tiers, and a super-spine above them a fourth (old: 147 cores per island + 37 super-spines = 4
    # tiers). One 3-tier fat tree of 32,768 ≤ k³/4 = 65,536 end points is 3 tiers with fewer switches:
    # per island 8,192 / 32 = 256 leaves and 256 spines, shared cores 32,768 / 64 = 512; non-blocking.
    spec = generate_spec("F", 32768, fabric="infiniband-ndr", pod_max_gpus=8192, oversubscription=7.0)
    fabric = fabric_from_inventory(spec_snapshot(spec))
    got, _, _ = _tiers_and_cables(spec)
    assert got == {"leaf": 4 * 256, "spine": 4 * 256, "core": 512}
    assert fabric.tiers == 3
    (campus,) = [p for p in fabric.pods if p.pod_id is None]
    assert campus.oversubscription == pytest.approx(1.0)
    assert campus.bisection_tbps == pytest.approx(32768 * 0.4 / 2)
    assert all(p["oversubscription"] == 1.0 for p in spec["pods"])
