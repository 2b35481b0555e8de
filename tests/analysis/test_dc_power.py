"""2025-2028 hardware and the 800 VDC / ±400 VDC power architectures (issue "Real campuses", finding 7).

- the new systems generate, their racks inside the published rack power;
- an 800 VDC chain's losses at the generated load equal a hand calculation from the cited stage
  efficiencies (docs/catalog.md, "Power defaults"), and so do the AC and ±400 VDC chains';
- the single-point list of a DC campus is what a brute-force impact sweep finds, as on AC;
- an Ascend 910B campus asked for liquid says that it was built air-cooled.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.distribution import copper_relative_to_ac, power_architecture
from campus.analysis.facility import campus_pue
from campus.analysis.power import baseline_rollup, power_graph
from campus.analysis.redundancy import redundancy_check
from campus.interchange.generate import GeneratorError, generate, generate_spec
from campus.interchange.importer import import_campus
from simulations.engine.kinds.grid_limit import model as grid_limit
from simulations.engine.kinds.grid_limit.params import GridLimitParams
from simulations.engine.runner import prepare
from tests.analysis.spec_snapshot import spec_snapshot
from tests.analysis.test_redundancy_brute_force import _brute_force
from tests.engine.builders import catalog_rates


def _servers_kw(snap, rack) -> float:
    return sum(snap.node_power_w(slug) * count for slug, count in rack.nodes) / 1000.0


SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}


# ---------------------------------------------------------------- the new systems


@pytest.mark.parametrize(
    ("gpu_model", "gpus", "fabric", "low_kw", "high_kw"),
    [
        # published rack power (docs/catalog.md, "2025-2028 systems")
        ("gb300", 144, "infiniband-xdr", 135.0, 150.0),  # GB300 NVL72 ~135-150 kW
        ("vr200", 144, "spectrum-x800", 190.0, 230.0),  # Vera Rubin NVL144 ~190-230 kW
        ("rubin-ultra", 144, "tomahawk6", 570.0, 630.0),  # Kyber NVL576 ~600 kW
    ],
)
def test_rack_scale_systems_generate_whole_racks_inside_the_published_rack_power(
    gpu_model, gpus, fabric, low_kw, high_kw
):
    spec = generate_spec("R", gpus, gpu_model=gpu_model, fabric=fabric)
    snap = spec_snapshot(spec)
    assert sum(sum(snap.rack_gpus(r).values()) for r in snap.racks) == gpus
    for rack in snap.racks:
        assert low_kw <= _servers_kw(snap, rack) <= high_kw
        assert rack.cooling_type == "direct-to-chip"


@pytest.mark.parametrize(
    ("gpu_model", "fabric"),
    [("b300", "infiniband-xdr"), ("mi355x", "tomahawk6"), ("ascend-910c", "roce-200ge")],
)
def test_2025_servers_generate_and_import_cleanly(gpu_model, fabric):
    design = generate("S", 384, gpu_model=gpu_model, fabric=fabric)
    snap = spec_snapshot(design.spec)
    assert {g for r in snap.racks for g in snap.rack_gpus(r)} == {gpu_model}
    assert all(r.cooling_type == "direct-to-chip" for r in snap.racks)
    assert "liquid cooling" in design.spec["campus"]["description"]


def test_a_rack_scale_system_refuses_air_cooling_by_name():
    with pytest.raises(GeneratorError) as caught:
        generate_spec("A", 144, gpu_model="vr200", cooling="air")
    assert caught.value.field == "cooling"


# ---------------------------------------------------------------- honest descriptions


def test_an_ascend_910b_campus_asked_for_liquid_says_it_was_built_air_cooled():
    design = generate("U", 1024, gpu_model="ascend-910b", fabric="roce-200ge", cooling="liquid")
    snap = spec_snapshot(design.spec)
    assert {r.cooling_type for r in snap.racks} == {"air"}
    description = design.spec["campus"]["description"]
    assert "air cooling (liquid asked" in description
    assert "liquid cooling" not in description
    assert any("atlas-800t-a2" in n and "air-cooled" in n for n in design.notes)


def test_a_mixed_campus_says_which_racks_stayed_on_air():
    design = generate(
        "M",
        mix=[{"gpu_model": "ascend-910c", "gpus": 384}, {"gpu_model": "ascend-910b", "gpus": 256}],
        fabric="roce-200ge",
    )
    description = design.spec["campus"]["description"]
    snap = spec_snapshot(design.spec)
    air = sum(1 for r in snap.racks if r.cooling_type == "air")
    liquid = len(snap.racks) - air
    assert air and liquid
    assert f"liquid cooling for {liquid} racks and air for {air}" in description


# ---------------------------------------------------------------- the chains' losses by hand

# Stage efficiencies (docs/catalog.md, "Power defaults"): substation 0.995; AC: transformer 0.99, switchgear
# 0.999, double-conversion UPS 0.96, PDU 0.995; dc-800: MV switchgear 0.999, SST 0.985, DC busway 0.999;
# dc-400: transformer 0.99, switchgear 0.999, sidecar rectifier 0.975, DC busway 0.999.
# Products worked by hand:
#   AC     0.995 x 0.99 x 0.999 x 0.96 x 0.995  = 0.98406495 x 0.96 x 0.995 = 0.93997884024
#   dc-800 0.995 x 0.999 x 0.985 x 0.999        = 0.994005 x 0.985 x 0.999 = 0.978115830075
#   dc-400 0.995 x 0.99 x 0.999 x 0.975 x 0.999 = 0.98406495 x 0.975 x 0.999 = 0.95850386292
CHAIN_EFFICIENCY = {"ac": 0.93997884024, "dc-800": 0.978115830075, "dc-400": 0.95850386292}


def _racks_only(architecture: str):
    """A generated 2N GB300 campus with its cooling taken out, so the chain carries the racks alone."""
    snap = spec_snapshot(generate_spec("L", 576, gpu_model="gb300", power_architecture=architecture))
    return replace(snap, cooling_units=(), cooling_plants=())


@pytest.mark.parametrize("architecture", ["ac", "dc-800", "dc-400"])
def test_chain_input_equals_the_rack_load_over_the_product_of_the_cited_stage_efficiencies(architecture):
    snap = _racks_only(architecture)
    chain = baseline_rollup(snap)
    # what the row stage (AC PDUs or DC busways) hands on: the racks' feeds and the hall's network and
    # allowance carried beside them; the mechanical PDUs carry nothing once the cooling is taken out
    rows = {d.id for d in snap.power_devices if d.kind in ("pdu", "dc-busway")}
    delivered_kw = sum(chain.device_output_kw.get(d, 0.0) for d in rows)
    rack_feeds = [fid for fids in power_graph(snap).rack_feeds.values() for fid in fids]
    # 8 GB300 NVL72 racks at 140.4 kW on their feeds
    assert sum(chain.feed_load_kw[fid] for fid in rack_feeds) == pytest.approx(8 * 140.4)
    assert delivered_kw >= 8 * 140.4
    assert chain.total_input_kw == pytest.approx(delivered_kw / CHAIN_EFFICIENCY[architecture], rel=1e-6)


def test_800_vdc_draws_a_few_percent_less_than_ac_at_the_same_load():
    ac, dc = (baseline_rollup(_racks_only(a)).total_input_kw for a in ("ac", "dc-800"))
    # 1 - 0.93997884 / 0.97811583 = 3.90 % less input for the same racks (NVIDIA: "up to 5 %" end to end,
    # the rack's own conversion included)
    assert 1.0 - ac / dc == pytest.approx(-0.0405, abs=5e-4)  # AC draws 4.06 % more than dc-800
    assert 1.0 - dc / ac == pytest.approx(0.0390, abs=5e-4)


# ---------------------------------------------------------------- single points, as on AC


@pytest.mark.parametrize("architecture", ["dc-800", "dc-400"])
@pytest.mark.parametrize(
    "params",
    [
        {"cooling": "air", "power_redundancy": "N"},
        {"cooling": "liquid", "power_redundancy": "2N"},
        {"cooling": "liquid", "power_redundancy": "N+1"},
    ],
    ids=lambda p: "-".join(p.values()),
)
def test_dc_single_point_list_equals_a_brute_force_impact_sweep(architecture, params):
    snap = spec_snapshot(generate_spec("P", 256, power_architecture=architecture, **params, **SMALL))
    kinds = {d.kind for d in snap.power_devices}
    assert {"dc-busway"} <= kinds and ("sst" in kinds) == (architecture == "dc-800")
    expected = _brute_force(snap)
    got = {(f.device_kind, f.device_id): f.gpus_lost for f in redundancy_check(snap)}
    assert got == expected
    if params["power_redundancy"] == "N":
        # one path: every SST / power rack and busway is a single point
        stage = {d.id for d in snap.power_devices if d.kind in ("sst", "rectifier", "dc-busway")}
        assert stage <= {i for k, i in got if k == "power"}
    else:
        assert not [k for k in got if k[0] == "power"]


def test_an_unknown_power_architecture_names_the_parameter():
    with pytest.raises(GeneratorError) as caught:
        generate_spec("X", 64, power_architecture="dc-1500")
    assert caught.value.field == "power_architecture"


@pytest.mark.django_db
def test_the_generate_endpoint_takes_the_architecture_and_refuses_an_unknown_one(planner_client):
    url = "/api/campuses/generate/"
    bad = planner_client.post(url, {"name": "D", "gpus": 64, "power_architecture": "dc"}, format="json")
    assert bad.status_code == 400 and "power_architecture" in bad.json()
    ok = planner_client.post(
        url, {"name": "D", "gpus": 144, "gpu_model": "gb300", "power_architecture": "dc-800"}, format="json"
    )
    assert ok.status_code == 201, ok.content


# ---------------------------------------------------------------- comparing the architectures


def test_800_vdc_copper_against_415_vac_by_hand():
    # 415 VAC: 1,000 / (√3 x 415 = 718.801) = 1.391205 A per kW in 3 conductors = 4.173615; 800 VDC: 1.25 A in 2 = 2.5
    assert copper_relative_to_ac("dc-800") == pytest.approx(2.5 / 4.173615, rel=1e-6)
    assert copper_relative_to_ac("dc-800") == pytest.approx(0.599001, abs=1e-6)
    assert copper_relative_to_ac("ac") == 1.0


def test_the_architecture_is_read_from_the_chain():
    for architecture in ("ac", "dc-800", "dc-400"):
        snap = spec_snapshot(generate_spec("K", 64, power_architecture=architecture, **SMALL))
        assert power_architecture(snap) == architecture


@pytest.mark.django_db
def test_a_planner_compares_the_same_campus_ac_and_800_vdc_through_the_diff(planner_client):
    ids = {}
    for architecture in ("ac", "dc-800"):
        spec = generate_spec(f"C {architecture}", 576, gpu_model="gb300", power_architecture=architecture)
        ids[architecture] = import_campus(spec).pk
    body = planner_client.get(f"/api/campuses/{ids['dc-800']}/diff/?against={ids['ac']}").json()
    figures = body["figures"]
    ac_loss, dc_loss, change = figures["power.distribution.chain_loss_mw"]
    assert dc_loss < ac_loss and change == pytest.approx(dc_loss - ac_loss)
    assert figures["power.distribution.copper_relative_to_ac"][:2] == [1.0, pytest.approx(0.599001, abs=1e-6)]
    assert all(v > 0 for v in figures["power.distribution.power_capex_usd"][:2])
    changed = {(o["model"], o["name"]) for o in body["objects"]["added"]}
    assert any(model == "powerdevice" and "SST" in name for model, name in changed)


@pytest.mark.parametrize(
    ("architecture", "stage"), [("ac", "ups"), ("dc-800", "sst"), ("dc-400", "rectifier")]
)
def test_the_grid_limit_scenario_rides_through_on_each_architectures_battery_stage(architecture, stage):
    snap = spec_snapshot(generate_spec("G", 256, power_architecture=architecture, **SMALL))
    modules = [d for d in snap.power_devices if d.kind == stage]
    assert modules and all(d.battery_minutes > 0 for d in modules)
    plan = grid_limit.prepare(snap, GridLimitParams())
    # rated kW x minutes / 60 summed over the stage's modules, by hand from the snapshot
    assert plan.battery_kwh == pytest.approx(sum(d.rated_kw * d.battery_minutes / 60.0 for d in modules))
    assert plan.battery_kwh > 0


def test_the_plant_model_pue_falls_by_about_the_chain_difference_on_800_vdc():
    pue = {
        a: campus_pue(spec_snapshot(generate_spec("Y", 1152, gpu_model="gb300", power_architecture=a))).pue
        for a in ("ac", "dc-800")
    }
    # by hand at the cited efficiencies: 1 / 0.93998 - 1 / 0.97812 = 0.0415 more input per kW delivered on AC;
    # the loss curves move each device off its quoted point, so a band around it. 2N is 2(N+1): each UPS
    # module or SST carries about 0.8 k / (2 (k + 1)) of its rating (0.27-0.3 at k = 2-3), where the no-load
    # losses weigh more (Schneider Electric WP 75: 2(N+1) the most lightly loaded UPS design), and AC has
    # two such stages (transformer, UPS) to 800 VDC's one (SST): the band reaches above the quoted points'
    assert 0.03 <= pue["ac"] - pue["dc-800"] <= 0.06


@pytest.mark.parametrize(
    ("architecture", "components"),
    [("dc-800", {"sst", "dc_busway"}), ("dc-400", {"rectifier", "dc_busway", "transformer"})],
)
def test_the_failure_cascade_draws_failures_of_the_dc_stages(architecture, components):
    snap = spec_snapshot(generate_spec("F", 256, power_architecture=architecture, **SMALL))
    snap = replace(snap, failure_rates=catalog_rates("llama3-2024", "infrastructure-estimates"))
    plan = prepare(snap, "failure_cascade", {"include_infrastructure": True, "duration_days": 10}).plan
    drawn = {c.component: c.units for c in plan.classes}
    assert components <= set(drawn)
    kind_of = {d.id: d.kind for d in snap.power_devices}
    assert {kind_of[u] for u in drawn.get("sst", ()) + drawn.get("rectifier", ())} <= {"sst", "rectifier"}
    assert {kind_of[u] for u in drawn["dc_busway"]} == {"dc-busway"}


@settings(max_examples=12, deadline=None)
@given(
    gpus=st.sampled_from([64, 256, 512]),
    redundancy=st.sampled_from(["N", "N+1", "2N"]),
    gpu_model=st.sampled_from(["h100-sxm", "b300", "mi355x"]),
)
def test_for_the_same_racks_dc_800_draws_least_and_ac_most(gpus, redundancy, gpu_model):
    fabric = "tomahawk6" if gpu_model == "mi355x" else "infiniband-ndr"
    drawn = {}
    for architecture in ("ac", "dc-400", "dc-800"):
        spec = generate_spec(
            "H",
            gpus,
            gpu_model=gpu_model,
            fabric=fabric,
            power_redundancy=redundancy,
            power_architecture=architecture,
            hall_max_it_mw=1.0,
            building_max_it_mw=2.0,
            racks_per_row=4,
            pod_max_gpus=256,
        )
        snap = replace(spec_snapshot(spec), cooling_units=(), cooling_plants=())
        drawn[architecture] = baseline_rollup(snap).total_input_kw
    assert drawn["dc-800"] < drawn["dc-400"] < drawn["ac"]
    # the ratio is the chains' efficiency ratio whatever the size or redundancy (every path in series)
    assert drawn["dc-800"] / drawn["ac"] == pytest.approx(
        CHAIN_EFFICIENCY["ac"] / CHAIN_EFFICIENCY["dc-800"], rel=1e-6
    )


@pytest.mark.django_db
def test_a_planner_rebuilds_a_branch_on_800_vdc_and_diffs_it_against_its_parent(planner_client):
    params = {"gpus": 144, "gpu_model": "gb300"}
    parent = planner_client.post("/api/campuses/generate/", {"name": "Site", **params}, format="json")
    assert parent.status_code == 201, parent.content
    parent_id = parent.json()["id"]
    branch = planner_client.post(
        f"/api/campuses/{parent_id}/branch/", {"name": "Site 800 VDC"}, format="json"
    )
    assert branch.status_code == 201, branch.content
    branch_id = branch.json()["id"]
    # the branch rebuilt with the other architecture: same campus row (id, parent), new power chain
    rebuilt = planner_client.post(
        "/api/campuses/generate/",
        {"name": "Site 800 VDC", **params, "power_architecture": "dc-800", "replace": True},
        format="json",
    )
    assert rebuilt.status_code == 201, rebuilt.content
    assert rebuilt.json()["id"] == branch_id
    assert planner_client.get(f"/api/campuses/{branch_id}/").json()["parent"]["id"] == parent_id
    body = planner_client.get(f"/api/campuses/{branch_id}/diff/?against={parent_id}").json()
    added = {o["name"] for o in body["objects"]["added"] if o["model"] == "powerdevice"}
    removed = {o["name"] for o in body["objects"]["removed"] if o["model"] == "powerdevice"}
    assert any("-SST-" in n for n in added) and any("-UPS-" in n for n in removed)
    ac_loss, dc_loss, _ = body["figures"]["power.distribution.chain_loss_mw"]
    assert dc_loss < ac_loss
