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
    # 8 + 2 = 10 ports fit one switch. Campus layer: 128 × 2 = 256 uplinks on 256 / 64 = 4 super-spines.
    # Switches 128 + 4 = 132 (not 1,668); cables 1,024 + 256 = 1,280 (not 34,048 + 1,024).
    spec = generate_spec("F", 1024, fabric="infiniband-ndr", pod_max_gpus=8, oversubscription=7.0)
    assert len(spec["pods"]) == 128
    got, node, up = _tiers_and_cables(spec)
    assert got == {"leaf": 128, "super-spine": 4}
    assert node == 1024 and up == 256
    fabric = fabric_from_inventory(spec_snapshot(spec))
    assert fabric.switches == 132 and fabric.links == 1280 and fabric.tiers == 2
    assert all(p.tiers == p.design_tiers == 1 for p in fabric.pods if p.pod_id is not None)


def test_a_pod_whose_uplinks_overflow_one_switch_gets_a_spine():
    # 64 end points + ⌈64 / 7⌉ = 10 uplinks = 74 > 64 ports: two tiers. Rail-optimized: one leaf per rail
    # (8 ports in use each), 64 uplinks; spines ⌈(64 + 10) / 64⌉ = 2.
    spec = generate_spec("F", 128, fabric="infiniband-ndr", pod_max_gpus=64, oversubscription=7.0)
    got, node, up = _tiers_and_cables(spec)
    assert got == {"leaf": 2 * 8, "spine": 2 * 2, "super-spine": 1}
    assert node == 128 and up == 2 * 64 + 2 * 10
    fabric = fabric_from_inventory(spec_snapshot(spec))
    assert all(p.tiers == p.design_tiers == 2 for p in fabric.pods if p.pod_id is not None)


def test_the_campus_layer_reports_its_real_oversubscription():
    # 4 islands of 8,192 GPUs at 7:1: 4 × ⌈8,192 / 7⌉ = 4 × 1,171 = 4,684 uplinks of 400G for 32,768
    # end points of 400G: 32,768 / 4,684 = 6.9957 (the configured 7 less the rounding up).
    spec = generate_spec("F", 32768, fabric="infiniband-ndr", pod_max_gpus=8192, oversubscription=7.0)
    fabric = fabric_from_inventory(spec_snapshot(spec))
    (campus,) = [p for p in fabric.pods if p.pod_id is None]
    assert campus.oversubscription == pytest.approx(32768 / 4684)
    assert math.ceil(8192 / 7) == 1171
    # each island's core takes its 8,192 spine cables and 1,171 uplinks: ⌈9,363 / 64⌉ = 147 switches
    cores = [s["count"] for s in spec["switches"] if s["tier"] == "core"]
    assert cores == [147] * 4
