"""What a capacity planner reads off the summary of generated 2N campuses: the 100k-H100 liquid-cooled Spectrum-X
campus (SemiAnalysis's 100k H100 cluster), a 24k-H100 air-cooled InfiniBand cluster (Meta's 24k clusters, 2024),
a GB200 NVL72 campus and a mixed H100 / MI300X / Ascend 910B campus on RoCE: no single point of failure, nothing
over its limit, IT that can still be added after failover in every building and hall, heat = IT.

The failover headroom is then checked by an independent path: the reported headroom is placed on the building's
racks (in proportion to today's load, as the headroom is defined) and the chain is rolled up again with either
side lost and with the binding failure; nothing may pass its planning limit. Placing 2 % more must put the
binding device over it. Pure core, no database; about 15 s on one core.
"""

from __future__ import annotations

import pytest

from campus.analysis.energy import it_breakdown
from campus.analysis.failures import fail
from campus.analysis.headroom import failover_headroom
from campus.analysis.power import power_graph, rollup
from campus.analysis.summary import campus_summary
from campus.interchange.generate import generate
from campus.interchange.spec_snapshot import spec_snapshot
from tests.analysis.builders import with_servers_scaled
from tests.interchange.design_checks import side_of_devices

TOL = 1e-6


CAMPUSES = {
    "100k-h100-liquid-spectrum-x": ({"gpus": 100_000, "fabric": "spectrum-x", "cooling": "liquid"}, 100_000),
    "24k-h100-air-infiniband": ({"gpus": 24_576, "fabric": "infiniband-ndr", "cooling": "air"}, 24_576),
    "gb200-nvl72": ({"gpus": 36_864, "gpu_model": "gb200", "cooling": "liquid"}, 36_864),
    "h100-mi300x-ascend-roce": (
        {
            "mix": [
                {"gpu_model": "h100-sxm", "gpus": 16_384},
                {"gpu_model": "mi300x", "gpus": 8_192},
                {"gpu_model": "ascend-910b", "gpus": 8_192},
            ],
            "fabric": "roce-200ge",
            "cooling": "liquid",
        },
        32_768,
    ),
}


@pytest.fixture(scope="module", params=sorted(CAMPUSES))
def campus(request):
    params, gpus = CAMPUSES[request.param]
    return spec_snapshot(generate(request.param, **params).spec), gpus


@pytest.fixture(scope="module")
def snap():
    params, _ = CAMPUSES["100k-h100-liquid-spectrum-x"]
    return spec_snapshot(generate("100k", **params).spec)


def test_the_summary_of_each_reference_2n_campus_is_clean(campus):
    snap, gpus = campus
    s = campus_summary(snap)
    power, cooling = s["power"], s["cooling"]
    assert s["inventory"]["gpus"] == gpus
    assert power["redundancy_findings_count"] == 0, power["redundancy_findings"]
    assert power["devices_over_planning_limit"] == []
    assert power["tripped_at_design_load"] == [] and power["racks_without_power"] == 0
    assert cooling["units_overloaded"] == [] and cooling["plants_overloaded"] == []
    assert cooling["groups_failing_n_plus_1"] == []
    # energy balance: every watt drawn by IT is heat a unit and a plant reject
    assert cooling["heat_load_mw"] == pytest.approx(power["it_mw"], rel=0.01)
    assert cooling["unassigned_heat_mw"] == pytest.approx(0.0, abs=1e-6)
    assert power["headroom_after_failover_mw"] > 0, power["headroom_binding"]
    assert s["buildings"]
    for card in s["buildings"]:
        assert card["headroom_mw"] > 0, (card["name"], card["headroom_binding"])
        # what both sides could take together is more than what survives a failure
        assert card["headroom_both_sides_mw"] > card["headroom_mw"]
    hr = failover_headroom(snap)
    assert hr.halls and all(h.headroom_kw > 0 for h in hr.halls.values())


# Installed servers move rule 5's other IT between halls by their shares of the servers, a ratio: the headroom
# is its exact derivative, and the re-run model differs from it in the second order (a few millionths of a
# limit for 1 % more IT).
SECOND_ORDER = 1e-5


def _over_limit(snap, failed: frozenset[int]) -> dict[int, float]:
    """Devices over their planning limit (load / limit) when ``failed`` are out."""
    g = power_graph(snap)
    r = rollup(snap, failed=failed)
    out = {}
    for d, load in r.device_load_kw.items():
        dev = g.devices[d]
        limit = dev.rated_kw * dev.max_utilization
        if load > limit * (1 + SECOND_ORDER):
            out[d] = load / limit
    return out


def test_the_failover_headroom_of_each_building_can_be_placed_and_no_more(snap):
    hr = failover_headroom(snap)
    sides = side_of_devices(snap)
    side_lost = {s: frozenset(d for d, side in sides.items() if side == s) for s in "AB"}
    for bid, row in hr.buildings.items():
        failure = row.binding_failure
        assert failure is not None and failure.kind in ("power", "side"), failure
        binding_failed = frozenset([failure.id]) if failure.kind == "power" else side_lost[failure.id]
        for factor, fits in ((1.0, True), (1.02, False)):
            # the headroom added to the building's racks as installed servers, the whole model re-run
            scale = 1.0 + factor * row.headroom_kw / row.it_kw
            grown = with_servers_scaled(snap, {r.id: scale for r in snap.racks if r.building_id == bid})
            if fits:
                for lost in (frozenset(), side_lost["A"], side_lost["B"], binding_failed):
                    assert _over_limit(grown, lost) == {}, (bid, lost)
            else:
                assert row.binding_id in _over_limit(grown, binding_failed), (bid, row.binding_dict())


def test_the_utility_feeds_supply_every_kw_of_it_and_of_the_mechanical_loads():
    # Conservation of energy: what the utilities (and generators) put into the chain covers the IT load and
    # the cooling's electrical load; the chain's conversion losses only add to it.
    small = spec_snapshot(
        generate("6k", gpus=6144, pod_max_gpus=3072, building_max_it_mw=5.0, hall_max_it_mw=2.5).spec
    )
    r = rollup(small)
    it_kw = it_breakdown(small).it_kw
    mechanical_kw = sum(r.mechanical_load_kw.values())
    assert r.total_input_kw >= it_kw + mechanical_kw


def test_a_grid_outage_leaves_every_gpu_powered_and_cooled_on_the_generators():
    # A utility outage is the event standby generators are built for (Uptime Institute Tier Standard:
    # Topology, on-site engine generation as the facility's own source): IT and the cooling it needs ride it.
    small = spec_snapshot(
        generate("6k", gpus=6144, pod_max_gpus=3072, building_max_it_mw=5.0, hall_max_it_mw=2.5).spec
    )
    outage = fail(small, [("utility", u.id) for u in small.utility_feeds])
    assert (outage.gpus_lost_power, outage.gpus_lost_cooling) == (0, 0)
