"""Generated campuses: tiers that close at every switch group, island size and the planning margin.

Hand figures at radix 64 (Quantum-2, infiniband-ndr), one end point per GPU: two tiers reach k²/2 =
2,048, three k³/4 = 65,536 (Al-Fares et al., SIGCOMM 2008, §2.2).
"""

from __future__ import annotations

import math
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.analysis.fabric import fabric_from_inventory, leaf_down_ports
from campus.analysis.placement import PlacementRequest, place
from campus.interchange.generate import generate_spec
from campus.interchange.generator import GeneratorError, generate
from campus.interchange.importer import import_campus
from campus.interchange.spec_snapshot import spec_snapshot
from campus.models import Switch
from tests.interchange.design_checks import design_problems


def _tier_counts(spec: dict) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for s in spec["switches"]:
        out[s["tier"]] += s["count"]
    return dict(out)


@pytest.mark.parametrize(
    ("gpus", "counts"),
    [
        # 2 islands of 8,192: each 8,192 / 32 = 256 leaves and 256 spines; one 3-tier tree of 16,384 ≤
        # 65,536 end points shares 16,384 / 64 = 256 cores (old: 2 × 147 cores + 37 super-spines, 4 tiers)
        (16_384, {"leaf": 512, "spine": 512, "core": 256}),
        # 8 islands of 8,192: k³/4 exactly, 2,048 + 2,048 + 1,024 = 5k²/4 switches (old: 4 tiers)
        (65_536, {"leaf": 2048, "spine": 2048, "core": 1024}),
    ],
)
def test_radix_64_campuses_up_to_k3_over_4_are_three_tiers(gpus, counts):
    spec = generate_spec("T", gpus, fabric="infiniband-ndr")
    assert _tier_counts(spec) == counts
    fabric = fabric_from_inventory(spec_snapshot(spec))
    assert fabric.tiers == 3
    assert all(p.tiers == p.design_tiers == 2 for p in fabric.pods if p.pod_id is not None)


def _group_ports(spec: dict) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Cable ends landing on each switch group, node cables on each, and cables up to its island's next tier."""
    ends: dict[str, int] = defaultdict(int)
    node: dict[str, int] = defaultdict(int)
    up: dict[str, int] = defaultdict(int)
    for link in spec["links"]:
        ends[link["b_switch"]] += link["count"]
        if "a_switch" in link:
            ends[link["a_switch"]] += link["count"]
            if "pod" in link:  # up to a tier of the switch's own island
                up[link["a_switch"]] += link["count"]
        else:
            node[link["b_switch"]] += link["count"]
    return ends, node, up


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    servers=st.integers(1, 900),
    island_servers=st.integers(1, 300),
    fabric=st.sampled_from(["infiniband-ndr", "spectrum-x"]),
    topology=st.sampled_from(["rail-optimized", "middle-of-rack"]),
    oversubscription=st.sampled_from([1.0, 3.0, 7.0, 16.0]),
    margin=st.sampled_from([0.0, 5.0, 10.0, 25.0]),
)
def test_generated_fabric_conserves_ports_at_every_tier_and_declares_its_bisection(
    servers, island_servers, fabric, topology, oversubscription, margin
):
    gpus = 8 * servers
    spec = generate_spec(
        "H",
        gpus,
        fabric=fabric,
        topology=topology,
        island_gpus=8 * island_servers,
        oversubscription=oversubscription,
        planning_margin_pct=margin,
    )
    radix = 64 if fabric == "infiniband-ndr" else 128
    ends, node, up = _group_ports(spec)
    by_tier: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for s in spec["switches"]:
        # no group over its radix: every cable end on a port of one of its switches
        assert ends[s["name"]] <= radix * s["count"], s["name"]
        if s["tier"] == "leaf" and up[s["name"]]:  # a non-blocking leaf: half its ports for end points
            assert node[s["name"]] <= leaf_down_ports(radix, 1.0) * s["count"]
        by_tier[s["tier"]][0] += ends[s["name"]]
        by_tier[s["tier"]][1] += s["count"]
    # port conservation at every tier: downlinks + uplinks <= radix x switches
    for cables, switches in by_tier.values():
        assert cables <= radix * switches
    assert sum(node.values()) == gpus  # one NIC port per GPU, each cabled once
    fabric_summary = fabric_from_inventory(spec_snapshot(spec))
    for pod in fabric_summary.pods:
        if pod.pod_id is not None:
            # inside an island: full bisection, half its GPUs at 400G
            assert pod.bisection_tbps == pytest.approx(pod.gpus * 0.4 / 2)
            # the tiers its GPUs need; a margin may design a tier more for the GPUs it leaves room for
            assert pod.tiers == pod.design_tiers if not margin else pod.tiers >= pod.design_tiers
        else:
            # above the islands: the declared ratio (rounded up to whole uplinks), or 1 where they share a top
            declared = spec["pods"][0]["oversubscription"]
            assert pod.oversubscription <= declared + 1e-9
            assert pod.oversubscription >= min(
                declared, gpus / math.ceil(gpus / declared + len(spec["pods"]))
            )
    assert fabric_summary.tiers == len({s["tier"] for s in spec["switches"]})
    # every top tier reachable from the tier below: at most (k/2)^(t-1) switches on the top of t tiers of
    # non-blocking leaves (an island's own top; with a shared top, the campus's)
    by_pod: dict[str | None, list[dict]] = defaultdict(list)
    for s in spec["switches"]:
        by_pod[s.get("pod")].append(s)
    shared = any(not s["tier"].startswith("super-spine") for s in by_pod[None])
    order = ["leaf", "spine", "core"]
    for pod, groups in by_pod.items():
        if (pod is None) != shared:
            continue  # an island under a shared top, or a super-spine layer (plan_campus's property)
        names = {g["tier"] for g in groups}
        depth = fabric_summary.tiers if pod is None else len(names)
        top_tier = max(names, key=order.index)
        top = sum(g["count"] for g in groups if g["tier"] == top_tier)
        if depth >= 2:
            assert top <= (radix // 2) ** (depth - 1), (pod, top, depth)
    if shared and fabric_summary.tiers == 2:
        # a shared spine tier reaches every leaf of every island: at most k leaves in all
        assert sum(s["count"] for s in spec["switches"] if s["tier"] == "leaf") <= radix


def test_a_generated_campus_with_a_planning_margin_takes_a_few_more_racks():
    # Without a margin every leaf group of a 2,048-GPU island is cabled full (64 leaves × 32 ports):
    # not one rack more fits. 10 %: ⌈256 servers × 1.1 / 32⌉ = 9 leaves per rail (32 spare ports each
    # rail), rows of ⌈32 × 1.1⌉ = 36 positions, row PDUs and the chain above rated for 1.1 × the load,
    # cooling units and plants for 1.1 × the heat: three 4-server racks (40.8 kW each, 3 × 32 ports)
    # fit on one row's feeds.
    full = place(spec_snapshot(generate_spec("P", 2048, island_gpus=2048)), PlacementRequest("hgx-h100-8", 1))
    assert not full["feasible"] and full["binding_constraint"] == "fabric_ports"
    spec = generate_spec("P", 2048, island_gpus=2048, planning_margin_pct=10)
    leaves = [s["count"] for s in spec["switches"] if s["tier"] == "leaf"]
    assert leaves == [9] * 8
    assert all(
        h["width_m"] == pytest.approx(2 * 3.0 + 36 * 0.6) for b in spec["buildings"] for h in b["halls"]
    )
    grown = place(spec_snapshot(spec), PlacementRequest("hgx-h100-8", 3))
    assert grown["feasible"], grown["binding"]


def test_island_gpus_is_the_size_of_an_island_and_pod_max_gpus_still_works():
    a = generate_spec("I", 4096, island_gpus=1024)
    b = generate_spec("I", 4096, pod_max_gpus=1024)
    assert len(a["pods"]) == len(b["pods"]) == 4
    assert a["switches"] == b["switches"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"island_gpus": 4}, "island_gpus"),
        ({"island_gpus": 70_000}, "island_gpus"),
        ({"island_gpus": 1024, "pod_max_gpus": 2048}, "island_gpus"),
        ({"island_gpus": 1024.5}, "island_gpus"),
        ({"planning_margin_pct": -1}, "planning_margin_pct"),
        ({"planning_margin_pct": 101}, "planning_margin_pct"),
        ({"planning_margin_pct": "ten"}, "planning_margin_pct"),
    ],
)
def test_bad_island_and_margin_parameters_name_the_field(params, field):
    with pytest.raises(GeneratorError) as err:
        generate("E", 1024, **params)
    assert err.value.field == field


def test_an_island_larger_than_a_building_spans_buildings_when_asked():
    # One island of 16,384 H100 (2,048 servers of 10.2 kW: 20.9 MW of servers) in buildings of at most
    # 12 MW of IT: refused unless the island may span buildings; then its racks continue in B2 and B3,
    # every building within 12 MW, its leaves per hall where its racks stand and its spines in B1.
    with pytest.raises(GeneratorError) as err:
        generate("S", 16384, island_gpus=16384, building_max_it_mw=12, hall_max_it_mw=6)
    assert err.value.field == "building_max_it_mw"
    assert "island_spans_buildings" in err.value.message
    spec = generate_spec(
        "S", 16384, island_gpus=16384, building_max_it_mw=12, hall_max_it_mw=6, island_spans_buildings=True
    )
    assert len(spec["pods"]) == 1
    pods_in = {
        b["name"]: {r["pod"] for h in b["halls"] for row in h["rows"] for r in row["racks"]}
        for b in spec["buildings"]
    }
    assert len(pods_in) >= 2 and all(p == {"POD-01"} for p in pods_in.values())
    assert all(b["design_it_mw"] <= 12.0 for b in spec["buildings"])
    leaf_buildings = {s["building"] for s in spec["switches"] if s["tier"] == "leaf"}
    assert leaf_buildings == set(pods_in)
    assert {s["building"] for s in spec["switches"] if s["tier"] != "leaf"} == {"B1"}
    snap = spec_snapshot(spec)
    assert design_problems(snap) == []
    (pod,) = fabric_from_inventory(snap).pods
    assert pod.gpus == 16384 and pod.tiers == pod.design_tiers == 3


def test_the_notes_say_how_the_islands_are_joined():
    # 16,384 on radix 64 in islands of 8,192: a shared non-blocking core (above)
    assert any("share one non-blocking top tier" in n for n in generate("N", 16384).notes)
    # 100,000 in 13 islands of ~7,693: 3-tier islands and a super-spine (4 tiers; one fat tree of 100,000
    # would be 4 too); two tiers with 7:1 uplinks hold 32 × 56 = 1,792 end points
    notes = generate("N", 100_000).notes
    assert any("islands of at most 1,792 end points (island_gpus) would keep 2" in n for n in notes)


def test_each_phase_may_have_its_own_building_limit():
    # 8,192 H100 a phase in islands of 2,048 (~2.9 MW of IT each with network and other IT): the first
    # phase in buildings of at most 8 MW takes two of them, the second at the default 80 MW one.
    spec = generate_spec(
        "P",
        phases=[
            {"date": "2026-01-01", "gpus": 8192, "gpu_model": "h100-sxm", "building_max_it_mw": 8},
            {"date": "2027-01-01", "gpus": 8192, "gpu_model": "h100-sxm"},
        ],
        island_gpus=2048,
        hall_max_it_mw=4,
    )
    by_date: dict[str, list[float]] = defaultdict(list)
    for b in spec["buildings"]:
        by_date[b["in_service_date"]].append(b["design_it_mw"])
    assert len(by_date["2026-01-01"]) == 2 and max(by_date["2026-01-01"]) <= 8.0
    assert len(by_date["2027-01-01"]) == 1 and by_date["2027-01-01"][0] > 8.0


@pytest.mark.parametrize(
    ("building_mw", "field"),
    [
        (-1, "phases[0].building_max_it_mw"),
        ("big", "phases[0].building_max_it_mw"),
        (2, "phases[0].building_max_it_mw"),  # below one island's IT
        (0.5, "phases[0].building_max_it_mw"),  # below the hall limit
    ],
)
def test_a_bad_phase_building_limit_names_the_phase(building_mw, field):
    phases = [
        {"date": "2026-01-01", "gpus": 4096, "gpu_model": "h100-sxm", "building_max_it_mw": building_mw}
    ]
    with pytest.raises(GeneratorError) as err:
        generate("P", phases=phases, hall_max_it_mw=1)
    assert err.value.field == field


@pytest.mark.django_db
@pytest.mark.parametrize(
    "params",
    [
        # 128 islands of 8: a campus layer of two tiers (super-spine, super-spine-2)
        {"gpus": 1024, "island_gpus": 8},
        # one island across buildings
        {
            "gpus": 16384,
            "island_gpus": 16384,
            "building_max_it_mw": 12,
            "hall_max_it_mw": 6,
            "island_spans_buildings": True,
        },
        # a shared core above two islands, with a planning margin
        {"gpus": 16384, "planning_margin_pct": 10},
    ],
)
def test_the_new_designs_import(params):
    spec = generate_spec("Imported", **params)
    campus = import_campus(spec)
    assert Switch.objects.filter(campus=campus).count() == len(spec["switches"])


def test_small_islands_with_more_rail_leaves_than_a_spine_reaches_keep_their_own_spines():
    # 20 islands of 64 GPUs (8 servers) on radix 64, rail-optimized: each island has one leaf per rail,
    # 8 ports in use each: 160 leaves, more than a shared spine's 64 ports reach, so no shared 2-tier
    # tree. Each island: 8 leaves and ⌈(64 + ⌈64 / 7⌉) / 64⌉ = ⌈74 / 64⌉ = 2 spines; campus layer
    # ⌈20 × 10 / 64⌉ = 4 super-spines: 160 + 40 + 4.
    spec = generate_spec("R", 1280, island_gpus=64)
    assert _tier_counts(spec) == {"leaf": 160, "spine": 40, "super-spine": 4}
