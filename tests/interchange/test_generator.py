"""Invariants of the reference-design generator, on the spec and on the imported campus."""

import math
from collections import defaultdict

import pytest

from campus import catalog_data as cat
from campus.analysis.fabric import design_fabric
from campus.analysis.facility import facility_year
from campus.analysis.feeds import rack_side_ratings_kw
from campus.analysis.power import rollup
from campus.analysis.redundancy import redundancy_check
from campus.analysis.snapshot import SwitchSpec
from campus.analysis.weather import reference_year
from campus.interchange.generate import GeneratorError, generate_spec
from campus.interchange.importer import import_campus, spec_counts, validate_spec
from campus.interchange.spec_snapshot import spec_snapshot
from campus.models import Node, PowerFeed, Rack
from campus.snapshot_adapter import build_snapshot


def all_racks(spec: dict) -> list[tuple[dict, dict]]:
    """(hall, rack) pairs."""
    return [
        (hall, rack)
        for b in spec["buildings"]
        for hall in b["halls"]
        for row in hall.get("rows", [])
        for rack in row["racks"]
    ]


def gpus_in(spec: dict) -> int:
    return sum(
        g["count"] * cat.node_model(g["model"])["gpus_per_node"]
        for _, rack in all_racks(spec)
        for g in rack["nodes"]
    )


def switch_ports_used(spec: dict) -> dict[str, int]:
    used: dict[str, int] = defaultdict(int)
    for link in spec["links"]:
        used[link["b_switch"]] += link["count"]
        if "a_switch" in link:
            used[link["a_switch"]] += link["count"]
    return used


DESIGNS = [
    {"gpus": 4096},
    {"gpus": 2048, "topology": "middle-of-rack", "fabric": "spectrum-x"},
    {"gpus": 3000, "cooling": "air", "fabric": "tomahawk5"},
    {"gpus": 1600, "gpu_model": "a100-sxm", "nic": "connectx7"},
    {
        "mix": [
            {"gpu_model": "h100-sxm", "gpus": 2048},
            {"gpu_model": "gb200", "gpus": 576},
            {"gpu_model": "mi300x", "gpus": 512},
        ]
    },
    {"gpus": 20000, "pod_max_gpus": 8192},
]


@pytest.mark.parametrize(
    "params", DESIGNS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items() if k != "mix") or "mix"
)
def test_generated_gpu_count_is_exact(params):
    spec = generate_spec("G", **params)
    expected = params.get("gpus") or sum(m["gpus"] for m in params["mix"])
    assert gpus_in(spec) == expected


@pytest.mark.parametrize(
    "params", DESIGNS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items() if k != "mix") or "mix"
)
def test_every_rack_has_a_and_b_feeds_rated_for_the_whole_rack(params):
    spec = generate_spec("G", **params)
    # 2N as 2(N+1): a second whip a side beside feed_a and feed_b, each whip rated for half the rack
    whips = defaultdict(list)
    for f in spec["power_feeds"]:
        if "rack" in f:
            whips[f["rack"]].append((f["side"], f["rating_kw"], f["from"]))
    for _, rack in all_racks(spec):
        assert rack["feed_a"] != rack["feed_b"]
        feeds = [("A", rack["feed_rating_kw"], rack["feed_a"]), ("B", rack["feed_rating_kw"], rack["feed_b"])]
        feeds += whips[rack["name"]]
        assert sorted(side for side, _, _ in feeds) == ["A", "A", "B", "B"]
        assert len({device for _, _, device in feeds}) == 4
        ratings = rack_side_ratings_kw((side, kw) for side, kw, _ in feeds)
        assert min(ratings.values()) >= rack["design_kw"]
        node_kw = sum(g["count"] * cat.node_power_w(g["model"]) for g in rack["nodes"]) / 1000.0
        assert rack["design_kw"] == pytest.approx(node_kw, abs=0.01)


@pytest.mark.parametrize(
    "params", DESIGNS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items() if k != "mix") or "mix"
)
def test_racks_stand_inside_their_halls_and_halls_inside_buildings(params):
    spec = generate_spec("G", **params)
    for hall, rack in all_racks(spec):
        assert rack["x_m"] >= 0 and rack["x_m"] + 0.6 <= hall["width_m"]
        assert rack["y_m"] >= 0 and rack["y_m"] + 1.2 <= hall["length_m"]
    for b in spec["buildings"]:
        for hall in b["halls"]:
            assert hall["x_m"] + hall["width_m"] <= b["width_m"]
            assert hall["y_m"] + hall["length_m"] <= b["length_m"]


@pytest.mark.parametrize(
    "params", DESIGNS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items() if k != "mix") or "mix"
)
def test_cooling_groups_are_n_plus_one_and_every_rack_has_a_unit(params):
    spec = generate_spec("G", **params)
    units = {u["name"]: u for u in spec["cooling_units"]}
    heat_by_group: dict[str, float] = defaultdict(float)
    for _, rack in all_racks(spec):
        unit = units[rack["cooling_unit"]]
        heat_by_group[unit["group"]] += rack["design_kw"]
        # cold-plated racks on CDUs; air racks (an air campus, or servers without a cold-plate version
        # such as the A100's) on CRAHs
        assert unit["kind"] == ("cdu" if rack["cooling_type"] == "direct-to-chip" else "crah")
        if params.get("cooling") == "air":
            assert rack["cooling_type"] == "air"
    for group, heat in heat_by_group.items():
        members = [u for u in units.values() if u["group"] == group]
        # the group still carries the heat with its largest unit lost
        assert sum(u["capacity_kw"] for u in members) - max(u["capacity_kw"] for u in members) >= heat
    building_heat = {b["name"]: b["design_it_mw"] * 1000.0 for b in spec["buildings"]}
    for building, heat in building_heat.items():
        plants = [p for p in spec["cooling_plants"] if p["building"] == building]
        assert sum(p["capacity_kw"] for p in plants) - max(p["capacity_kw"] for p in plants) >= heat


@pytest.mark.parametrize(
    "params", DESIGNS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items() if k != "mix") or "mix"
)
def test_link_media_follow_cable_lengths(params):
    spec = generate_spec("G", **params)
    for link in spec["links"]:
        assert link["medium"] == cat.medium_for_length(link["length_m"]), link


@pytest.mark.parametrize(
    "params", DESIGNS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items() if k != "mix") or "mix"
)
def test_switch_groups_have_the_ports_their_links_use(params):
    spec = generate_spec("G", **params)
    used = switch_ports_used(spec)
    for switch in spec["switches"]:
        radix = cat.switch_model(switch["model"])["radix"]
        assert used[switch["name"]] <= switch["count"] * radix, switch["name"]
    # every NIC port of every server has a cable to a leaf
    nic_ports = sum(
        g["count"] * cat.node_model(g["model"])["nics"] for _, rack in all_racks(spec) for g in rack["nodes"]
    )
    assert sum(k["count"] for k in spec["links"] if "a_rack" in k) == nic_ports


@pytest.mark.parametrize(
    ("gpus", "fabric", "tiers"),
    [
        (2048, "infiniband-ndr", 2),
        (8192, "infiniband-ndr", 3),
        (8192, "spectrum-x", 2),
        (16384, "tomahawk5", 3),
    ],
)
def test_each_pod_has_the_tiers_design_fabric_computes_from_the_radix(gpus, fabric, tiers):
    spec = generate_spec("G", gpus, fabric=fabric, pod_max_gpus=gpus)
    switch = cat.switch_model(spec["pods"][0]["switch_model"])
    spec_obj = SwitchSpec(switch["slug"], switch["name"], switch["fabric"], switch["radix"], 400.0, 0.0, 0.0)
    design = design_fabric(gpus, spec_obj, "rail-optimized")
    assert design.tiers == tiers
    assert {s["tier"] for s in spec["switches"]} == {"leaf", "spine", "core"}.intersection(
        ("leaf", "spine", "core")[:tiers]
    )
    counts = defaultdict(int)
    for s in spec["switches"]:
        counts[s["tier"]] += s["count"]
    # per tier at least what the non-blocking design needs (grouping per rail only rounds up)
    for index, tier in enumerate(("leaf", "spine", "core")[:tiers]):
        assert counts[tier] >= design.switches_per_tier[index]
    leaf_ports_down = counts["leaf"] * switch["radix"] // 2
    assert leaf_ports_down >= gpus


def test_middle_of_rack_puts_node_cables_on_copper_and_a_third_of_the_fabric():
    spec = generate_spec("G", 16384, topology="middle-of-rack", pod_max_gpus=8192)
    node_media = {k["medium"] for k in spec["links"] if "a_rack" in k}
    assert node_media <= {"dac", "aec"}
    copper = sum(k["count"] for k in spec["links"] if k["medium"] in ("dac", "aec"))
    share = copper / sum(k["count"] for k in spec["links"])
    assert 0.25 <= share <= 0.34
    rail = generate_spec("G", 16384, topology="rail-optimized", pod_max_gpus=8192)
    assert {k["medium"] for k in rail["links"] if "a_rack" in k} <= {"aec", "sr"}


def test_islands_are_joined_by_a_super_spine_with_the_oversubscription():
    # Islands of 1,600 close in two tiers with their uplinks (1,600 + 229 ≤ 64 × 32); islands of 8,192
    # on radix 64 would need three and share a non-blocking core instead
    # (test_generator_fabric_sizing.py).
    spec = generate_spec("G", 6400, pod_max_gpus=1600, oversubscription=7.0)
    assert len(spec["pods"]) == 4
    super_links = [k for k in spec["links"] if k["b_switch"] == "SUPER-SPINE"]
    assert len(super_links) == 4
    for link in super_links:
        assert link["count"] == math.ceil(1600 / 7.0)
    (super_spine,) = [s for s in spec["switches"] if s["tier"] == "super-spine"]
    assert super_spine["count"] == math.ceil(4 * math.ceil(1600 / 7.0) / 64)


def test_buildings_and_halls_respect_their_power_limits():
    spec = generate_spec("G", 60000, building_max_it_mw=40.0, hall_max_it_mw=15.0)
    for b in spec["buildings"]:
        assert b["design_it_mw"] <= 40.0
        for hall in b["halls"]:
            assert hall["design_it_mw"] <= 15.0
    # no typed PUE: the grid connection carries the plant model's hottest hour in a hot dry and a hot humid
    # climate
    assert spec["campus"]["design_pue"] is None
    snap = spec_snapshot(spec)
    for climate in ("phoenix-us", "singapore-sg"):
        w = reference_year(climate)
        peak_mw = facility_year(snap, w.dry_bulb_c, w.wet_bulb_c).peak_facility_mw
        assert spec["campus"]["grid_capacity_mw"] >= peak_mw


def test_air_cooled_racks_stay_under_the_air_limit_with_fewer_servers():
    air = generate_spec("G", 1024, cooling="air")
    liquid = generate_spec("G", 1024, cooling="liquid")
    limit = cat.default_value("air_cooling_limit_kw_per_rack")
    assert max(r["design_kw"] for _, r in all_racks(air)) <= limit
    assert len(all_racks(air)) > len(all_racks(liquid))
    assert {r["cooling_type"] for _, r in all_racks(air)} == {"air"}


def test_nvl72_racks_hold_eighteen_trays():
    spec = generate_spec("G", 720, gpu_model="gb200")
    counts = [g["count"] for _, r in all_racks(spec) for g in r["nodes"]]
    assert counts == [18] * 10


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"gpus": 1001}, "gpus"),
        ({"gpus": 1024, "gpu_model": "gb200", "cooling": "air"}, "cooling"),
        ({"gpus": 1024, "gpu_model": "h200", "nic": "bluefield3"}, "nic"),
        ({"gpus": 1024, "gpu_model": "tpu-v5"}, "gpu_model"),
        ({"gpus": 1024, "fabric": "token-ring"}, "fabric"),
        ({"gpus": 1024, "pue": 0.9}, "pue"),
        ({"gpus": 1024, "pod_max_gpus": 10**6}, "pod_max_gpus"),
        ({"gpus": 100, "mix": [{"gpu_model": "h100-sxm", "gpus": 64}]}, "gpus"),
        # fabrics per vendor: Ascend 910B only on 200GE RoCE, MI300X on InfiniBand or RoCE
        ({"gpus": 1024, "gpu_model": "ascend-910b", "fabric": "infiniband-ndr"}, "fabric"),
        ({"gpus": 1024, "gpu_model": "mi300x", "fabric": "spectrum-x"}, "fabric"),
        ({"gpus": 1024, "gpu_model": "ascend-910b", "fabric": "roce-200ge", "nic": "connectx7"}, "nic"),
        (
            {"mix": [{"gpu_model": "h100-sxm", "gpus": 1024}, {"gpu_model": "ascend-910b", "gpus": 1024}]},
            "fabric",
        ),
        ({"mix": [{"gpu_model": "h100-sxm", "gpus": 1024, "nics": 8}]}, "mix"),
    ],
)
def test_bad_parameters_name_the_parameter(params, field):
    with pytest.raises(GeneratorError) as caught:
        generate_spec("G", **params)
    assert caught.value.field == field


@pytest.mark.django_db
def test_generated_campus_imports_and_is_2n_with_no_overloads():
    spec = generate_spec(
        "Imported",
        mix=[{"gpu_model": "h100-sxm", "gpus": 2048}, {"gpu_model": "gb200", "gpus": 288}],
        pod_max_gpus=1024,
    )
    assert validate_spec(spec) == []
    campus = import_campus(spec)
    gpus = sum(
        n.node_model.gpus_per_node
        for n in Node.objects.filter(rack__campus=campus).select_related("node_model")
    )
    assert gpus == 2048 + 288 == spec_counts(spec)["gpus"]
    for rack in Rack.objects.filter(campus=campus):
        # 2N as 2(N+1): two whips a side, each rated for half the rack, so either side alone carries it
        feeds = sorted((f.side, f.rating_kw) for f in PowerFeed.objects.filter(rack=rack))
        assert [side for side, _ in feeds] == ["A", "A", "B", "B"]
        assert min(rating for _, rating in feeds) >= rack.design_kw / 2
        assert min(rack_side_ratings_kw(feeds).values()) >= rack.design_kw
        assert rack.cooling_unit_id is not None
    snap = build_snapshot(campus)
    result = rollup(snap)
    assert result.tripped == []
    assert result.racks_without_power == set()
    # 2N: no single element's loss leaves a rack dark or uncooled or trips another element
    assert redundancy_check(snap) == []


@pytest.mark.django_db
def test_generated_campus_has_no_single_point_for_cooling():
    # every unit and plant is fed from a side-A and a side-B mechanical device
    spec = generate_spec("Mechanical", 1024, cooling="air", hall_max_it_mw=2.0)
    snap = build_snapshot(import_campus(spec))
    assert [f for f in redundancy_check(snap) if f.effect == "cooling"] == []
