"""Reference designs pass their own checks: power, both sides, cooling and redundancy, for every
combination the generator offers (a property over its parameter space) and on two published campus sizes.

Pure: the spec becomes a snapshot in memory (``spec_snapshot``); no database.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus import catalog_data as cat
from campus.analysis.cooling import cooling_balance
from campus.analysis.energy import it_breakdown
from campus.analysis.facility.year import facility_year
from campus.analysis.headroom import failover_headroom
from campus.analysis.impact import impact
from campus.analysis.rackscale import whole_rack_nodes
from campus.analysis.weather import CLIMATES, reference_year
from campus.interchange.generate import FABRIC_SWITCH, GeneratorError, generate
from campus.interchange.spec_snapshot import spec_snapshot
from tests.interchange.design_checks import design_problems, worst_utilisation

GPU_VENDOR = {g["slug"]: g["vendor"] for g in cat.GPU_MODELS}
NODES_BY_GPU: dict[str, list[dict]] = {}
for _node in cat.NODE_MODELS:
    NODES_BY_GPU.setdefault(_node["gpu"], []).append(_node)


def grid_outage(snap) -> tuple[int, int, int]:
    """GPUs without power, GPUs powered but uncooled, and new trips with every utility feed lost: the
    event standby generation is built for (Uptime Institute Tier Standard: Topology, engine generators
    as the facility's own source), so IT and the cooling it needs ride it, overloading nothing."""
    out = impact(snap, failed=[("utility", u.id) for u in snap.utility_feeds])
    return out.gpus_lost_power, out.gpus_lost_cooling, out.new_trips


@st.composite
def designs(draw) -> dict:
    """A valid parameter set: one or two GPU models, a fabric every one of their vendors offers, a NIC
    the first model has a server for, 1k-30k GPUs, a planning margin, islands across small buildings."""
    models = draw(st.lists(st.sampled_from(sorted(GPU_VENDOR)), min_size=1, max_size=2, unique=True))
    fabrics = set(FABRIC_SWITCH)
    for m in models:
        fabrics &= set(cat.fabrics_for_vendor(GPU_VENDOR[m]))
    fabric = draw(st.sampled_from(sorted(fabrics)))
    # rack-scale NVLink domains (NVL72, NVL144, NVL576) come only liquid-cooled
    rack_scale = any(whole_rack_nodes(n["slug"], n["gpus_per_node"]) for m in models for n in NODES_BY_GPU[m])
    cooling = "liquid" if rack_scale else draw(st.sampled_from(["liquid", "air"]))
    total = draw(st.integers(1000, 30_000))
    mix = [{"gpu_model": m, "gpus": max(8, total // len(models) // 8 * 8)} for m in models]
    params = {
        "mix": mix,
        "fabric": fabric,
        "cooling": cooling,
        "topology": draw(st.sampled_from(["rail-optimized", "middle-of-rack"])),
        "pod_max_gpus": draw(st.sampled_from([2048, 4096, 8192])),
        "hall_max_it_mw": draw(st.sampled_from([2.0, 5.0, 20.0])),
        "racks_per_row": draw(st.sampled_from([8, 16, 32])),
        "power_architecture": draw(st.sampled_from(["ac", "dc-800", "dc-400"])),
        "planning_margin_pct": draw(st.sampled_from([0.0, 10.0, 25.0])),
    }
    if params["hall_max_it_mw"] <= 5.0 and draw(st.booleans()):
        # buildings smaller than an island: the island continues in the next building
        params["building_max_it_mw"] = 2 * params["hall_max_it_mw"]
        params["island_spans_buildings"] = True
    if len(models) == 1:
        params["nic"] = draw(
            st.sampled_from([None, *sorted({n["nic_kind"] for n in NODES_BY_GPU[models[0]]})])
        )
    return params


@settings(max_examples=40, deadline=None)
@given(designs())
def test_every_generated_design_passes_its_own_checks(params):
    snap = spec_snapshot(generate("P", **params).spec)
    # no device or feed over its planning limit with both sides up or either lost; nothing trips;
    # no device feeds both sides and every unit and plant is fed from both; heat = IT and all of it
    # assigned; no unit or plant overloaded or idle; every group N+1; no single point of failure
    assert design_problems(snap) == []
    assert grid_outage(snap) == (0, 0, 0)


@pytest.mark.parametrize(
    ("params", "gpus"),
    [
        # SemiAnalysis's 100k H100 cluster on Spectrum-X, liquid-cooled
        ({"gpus": 100_000, "fabric": "spectrum-x", "cooling": "liquid"}, 100_000),
        # a 24k-GPU air-cooled InfiniBand cluster (Meta's 2 x 24k H100 clusters, 2024)
        ({"gpus": 24_576, "fabric": "infiniband-ndr", "cooling": "air"}, 24_576),
    ],
    ids=["100k-liquid", "24k-air"],
)
def test_reference_campuses_pass_their_own_checks(params, gpus):
    snap = spec_snapshot(generate("R", **params).spec)
    assert sum(sum(snap.rack_gpus(r).values()) for r in snap.racks) == gpus
    assert design_problems(snap) == []
    worst = worst_utilisation(snap)
    # 2N: ~40 % with both sides up, at most the 80 % planning limit with one side carrying everything
    assert worst["device_normal"] <= 0.41
    assert worst["device_one_side"] <= 0.8 + 1e-9
    assert worst["unit"] <= 1.0 and worst["plant"] <= 1.0
    bal = cooling_balance(snap)
    assert bal.heat_load_kw == pytest.approx(it_breakdown(snap).it_kw, rel=0.01)
    # a 350 kW CRAH never carries more than 350 kW (it carried 367 kW before)
    assert all(u.heat_kw <= 350.0 for u in bal.units if u.capacity_kw == 350.0)
    # sized to the planning limit: after the worst single failure no element is beyond it
    headroom = failover_headroom(snap)
    assert min(e.headroom_kw for e in [*headroom.devices.values(), *headroom.utilities.values()]) >= 0
    assert headroom.campus.headroom_kw >= 0
    assert grid_outage(snap) == (0, 0, 0)


def test_gb200_is_built_as_whole_nvl72_racks_and_the_rounding_is_said():
    design = generate("G", 1000, gpu_model="gb200")
    snap = spec_snapshot(design.spec)
    # 1,000 GPUs are 13.9 racks of 72: 14 whole racks, 1,008 GPUs
    assert [sum(snap.rack_gpus(r).values()) for r in snap.racks] == [72] * 14
    assert design.notes == ["gb200: 1,000 GPUs rounded up to 1,008 (14 whole NVL72 racks of 72)"]
    assert "1,008" in design.spec["campus"]["description"]
    # pods of whole racks even when the island limit is not a multiple of 72
    small_pods = spec_snapshot(generate("G", 1440, gpu_model="gb200", pod_max_gpus=512).spec)
    assert {sum(small_pods.rack_gpus(r).values()) for r in small_pods.racks} == {72}
    assert generate("G", 720, gpu_model="gb200").notes == []


@pytest.mark.parametrize(
    ("gpu_model", "fabric", "nic_kind"),
    [
        ("ascend-910b", "roce-200ge", "roce-200ge"),
        ("mi300x", "infiniband-ndr", "connectx7"),
        ("mi300x", "tomahawk5", "connectx7"),
        ("h100-sxm", "spectrum-x", "connectx7"),
        ("h100-sxm", "roce-200ge", "connectx7"),
    ],
)
def test_each_vendor_gets_the_fabrics_it_is_built_for(gpu_model, fabric, nic_kind):
    spec = generate("V", 2048, gpu_model=gpu_model, fabric=fabric).spec
    nodes = {
        g["model"]
        for b in spec["buildings"]
        for h in b["halls"]
        for r in h["rows"]
        for k in r["racks"]
        for g in k["nodes"]
    }
    assert {cat.node_model(n)["nic_kind"] for n in nodes} == {nic_kind}
    assert {p["switch_model"] for p in spec["pods"]} == {FABRIC_SWITCH[fabric]}


def test_an_unknown_parameter_is_refused_by_name():
    with pytest.raises(TypeError, match="racks_per_hall"):
        generate("U", 1024, racks_per_hall=8)
    with pytest.raises(GeneratorError) as caught:
        generate("U", mix=[{"gpu_model": "h100-sxm", "gpus": 1024, "cooling": "air"}])
    assert caught.value.field == "mix" and '"cooling"' in caught.value.message


@pytest.mark.parametrize("cooling", ["liquid", "air"])
@pytest.mark.parametrize("climate", CLIMATES)
def test_a_generated_design_rejects_its_heat_in_every_hour_of_its_own_climate(climate, cooling):
    """The hourly plant model over the climate's reference year (not the generator's sizing rule) finds no
    hour in which a plant cannot reject the heat it is given, and the design still passes its checks."""
    snap = spec_snapshot(generate("W", 4096, cooling=cooling, climate=climate).spec)
    year = reference_year(climate)
    assert facility_year(snap, year.dry_bulb_c, year.wet_bulb_c).hours_short == 0
    assert design_problems(snap) == []


def test_warm_climates_get_chillers_for_the_liquid_loop_and_cool_ones_dry_coolers():
    def cdu_plant_kinds(climate: str) -> set[str]:
        spec = generate("K", 4096, cooling="liquid", climate=climate).spec
        cdu_plants = {u["plant"] for u in spec["cooling_units"] if u["kind"] == "cdu"}
        return {p["kind"] for p in spec["cooling_plants"] if p["name"] in cdu_plants}

    # Dublin's hottest hour (20 °C) leaves a dry cooler (45 − 20) / (45 − 19) = 96 % of its rating;
    # Phoenix's (41.6 °C) 13 %: chillers with an economiser there.
    assert cdu_plant_kinds("dublin-ie") == {"dry-cooler"}
    assert cdu_plant_kinds("phoenix-us") == {"chiller"}
