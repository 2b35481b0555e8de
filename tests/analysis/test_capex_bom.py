"""Capex and the bill of materials (docs/capex.md).

- A small campus priced by hand, line by line, from the catalog's published and estimated prices.
- On generated campuses (hypothesis over the generator's parameters): every switch, optical module and cable
  of the inventory appears once in the bill of materials, counted by a brute-force path that walks every
  cable and every end; grouping by building, hall or pod only splits the lines (the totals stay).
- Overrides replace exactly the rows they name; an unknown key is refused naming it.
- The total cost of ownership discounted by hand.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.analysis.bom import COUNTED_KINDS, campus_bom, campus_fabric_design_cost, length_bin
from campus.analysis.capex import infrastructure_capex, price_catalog, tco, unit_price, validate_overrides
from campus.analysis.catalog import catalog_specs
from campus.analysis.fabric import design_campus_fabric
from campus.analysis.snapshot import (
    BuildingSnap,
    CampusSnapshot,
    CoolingPlantSnap,
    CoolingUnitSnap,
    HallSnap,
    LinkSnap,
    PodSnap,
    PowerDeviceSnap,
    PowerFeedSnap,
    RackSnap,
    SwitchSnap,
    UtilityFeedSnap,
)
from campus.interchange.generate import generate_spec
from tests.analysis.builders import H100, H100_NODE, MEDIA, QM9700
from tests.analysis.spec_snapshot import spec_snapshot


def small_campus(**over) -> CampusSnapshot:
    """One 20 m x 30 m building, one hall, two direct-to-chip racks of 4 DGX H100 fed A and B at 60 kW each,
    a 1 MW UPS, two 500 kW PDUs, an 800 kW CDU, a 1 MW chiller, a 2 MW utility feed; a pod of 2 leaves (one
    group) and 1 spine, 64 rack-leaf SR cables of 20 m and 16 leaf-spine DACs of 2 m."""
    racks = tuple(
        RackSnap(i, f"R{i}", 1, 1, float(i), 0.0, "direct-to-chip", 60.0, 10, 1, "active", (("dgx-h100", 4),))
        for i in (1, 2)
    )
    snap = CampusSnapshot(
        id=1,
        name="small",
        grid_capacity_kw=2000.0,
        price_usd_per_kwh=0.078,
        design_pue=1.2,
        ambient_temp_c=25.0,
        other_it_fraction=0.1,
        gpus={"h100": H100},
        node_models={"dgx-h100": H100_NODE},
        switch_models={"qm9700": QM9700},
        media=MEDIA,
        buildings=(BuildingSnap(1, "B1", 0.0, 0.0, 20.0, 30.0),),
        halls=(HallSnap(1, 1, "H1", 18.0, 28.0),),
        racks=racks,
        utility_feeds=(UtilityFeedSnap(1, "U1", 2000.0),),
        power_devices=(
            PowerDeviceSnap(1, "UPS", "ups", 1000.0, 0.96, 0.8, 1, 1),
            PowerDeviceSnap(2, "PDU-A", "pdu", 500.0, 0.99, 0.8, 1, None, hall_id=1),
            PowerDeviceSnap(3, "PDU-B", "pdu", 500.0, 0.99, 0.8, 1, None, hall_id=1),
        ),
        power_feeds=tuple(
            PowerFeedSnap(10 * rack + n, pdu, None, rack, side, 60.0)
            for rack in (1, 2)
            for n, (pdu, side) in enumerate(((2, "A"), (3, "B")))
        ),
        cooling_plants=(CoolingPlantSnap(1, "CH1", "chiller", 1000.0, 6.0, 1, None),),
        cooling_units=(CoolingUnitSnap(10, "CDU1", "cdu", 800.0, 30.0, 40.0, 1000.0, 1, None, 1),),
        pods=(PodSnap(1, "POD1", "infiniband-ndr", "rail-optimized", 1.0, "qm9700", 1),),
        switches=(
            SwitchSnap(1, "LEAF", 1, "leaf", "quantum-2-qm9700", 2, 1, None),
            SwitchSnap(2, "SPINE", 1, "spine", "quantum-2-qm9700", 1, 1, None),
        ),
        links=(
            LinkSnap(1, 1, "backend", "sr", 32, 20.0, 400.0, 1, None, 1),
            LinkSnap(2, 1, "backend", "sr", 32, 20.0, 400.0, 2, None, 1),
            LinkSnap(3, 1, "backend", "dac", 16, 2.0, 400.0, None, 1, 2),
        ),
    )
    return replace(snap, **over)


def test_a_small_campus_priced_by_hand():
    bom = campus_bom(small_campus())
    capex = bom.capex_usd()
    # power: UPS 1,000 kW x $300 + PDUs 1,000 kW x $50 + the 2 MW grid connection x $100/kW + 4 rack feeds of
    # 60 kW x $75/kW of in-rack PDU (estimates, docs/capex.md)
    assert capex["power"] == pytest.approx(1000 * 300 + 1000 * 50 + 2000 * 100 + 4 * 60 * 75)
    # cooling: CDU 800 kW x $100 + chiller 1,000 kW x $300 + 2 direct-to-chip rack manifolds at $8,000
    assert capex["cooling"] == pytest.approx(800 * 100 + 1000 * 300 + 2 * 8000)
    # network: 3 QM9700 at $36,000 (Cheah 2024-08); 64 SR cables = 128 modules at $650, and 64 fibres of
    # 20 m at $2.5/m plus $40 of terminations; 16 DACs at $150
    assert capex["network"] == pytest.approx(3 * 36_000 + 128 * 650 + 64 * (20 * 2.5 + 40) + 16 * 150)
    # compute: 8 DGX H100 at $270,000 (SemiAnalysis 2023-05)
    assert capex["compute"] == pytest.approx(8 * 270_000)
    # building: 600 m2 at $2,500 and 2 racks at $4,000
    assert capex["building"] == pytest.approx(600 * 2500 + 2 * 4000)
    assert capex["total"] == pytest.approx(
        sum(capex[c] for c in ("power", "cooling", "network", "compute", "building"))
    )
    # the power chain and cooling alone, as infrastructure_capex has them (the feed apart)
    infra = infrastructure_capex(small_campus())
    assert infra.power_usd == pytest.approx(1000 * 300 + 1000 * 50)
    assert infra.cooling_usd == pytest.approx(800 * 100 + 1000 * 300)


def test_lines_carry_unit_price_source_and_the_length_bin():
    lines = {(x.kind, x.item, x.detail): x for x in campus_bom(small_campus()).lines}
    fibre = lines[("cable", "fiber", "7-50 m")]
    assert fibre.count == 64 and fibre.total_usd == pytest.approx(64 * 90.0)
    sr = lines[("optic", "sr-400g", "")]
    assert sr.count == 128 and sr.price.unit == "module" and sr.price.estimate
    switch = lines[("switch", "quantum-2-qm9700", "")]
    assert switch.count == 3 and "Cheah" in switch.price.source and not switch.price.estimate
    assert [length_bin(x) for x in (3.0, 3.1, 7.0, 50.0, 400.0, 2000.0, 2500.0)] == [
        "0-3 m",
        "3-7 m",
        "3-7 m",
        "7-50 m",
        "50-500 m",
        "500-2000 m",
        ">2000 m",
    ]


def test_an_override_replaces_exactly_its_row():
    base = campus_bom(small_campus()).capex_usd()
    cheaper = campus_bom(small_campus(price_overrides=(("switch/quantum-2-qm9700", 30_000.0),))).capex_usd()
    assert base["network"] - cheaper["network"] == pytest.approx(3 * 6_000)
    assert {c: base[c] for c in ("power", "cooling", "compute", "building")} == {
        c: cheaper[c] for c in ("power", "cooling", "compute", "building")
    }
    row = unit_price("switch", "quantum-2-qm9700", {"switch/quantum-2-qm9700": 30_000.0})
    assert row.overridden and row.unit_price_usd == 30_000.0 and row.source == "campus override"
    # an override of the per-kW UPS row moves infrastructure_capex too
    ups = infrastructure_capex(small_campus(price_overrides=(("power-device/ups", 200.0),)))
    assert ups.power_usd == pytest.approx(1000 * 200 + 1000 * 50)


@pytest.mark.parametrize(
    "overrides, fault",
    [
        ({"switch/no-such-switch": 1.0}, "switch/no-such-switch"),
        ({"power-device/ups": -1.0}, "power-device/ups"),
        ({"power-device/ups": "cheap"}, "power-device/ups"),
        ({"power-device/ups": float("nan")}, "power-device/ups"),
        ([1, 2], "object"),
    ],
)
def test_a_bad_override_names_its_key(overrides, fault):
    with pytest.raises(ValueError, match=fault):
        validate_overrides(overrides)


def test_a_model_without_a_row_is_priced_per_gpu():
    row = unit_price("server", "not-in-the-catalog")
    assert row.item == "other" and row.unit == "gpu"
    with pytest.raises(KeyError):
        unit_price("no-such-kind", "x")


def test_tco_discounted_by_hand():
    # capex 100 now; 10 of energy and 1 of fuel at the end of each of 2 years at 10 %
    got = tco(100.0, 10.0, 1.0, horizon_years=2, discount_rate=0.10)
    assert got["energy_usd"] == pytest.approx(10 / 1.1 + 10 / 1.1**2)
    assert got["fuel_usd"] == pytest.approx(1 / 1.1 + 1 / 1.1**2)
    assert got["total_usd"] == pytest.approx(100 + 11 / 1.1 + 11 / 1.21)
    assert tco(100.0, 10.0, 0.0, horizon_years=3, discount_rate=0.0)["total_usd"] == pytest.approx(130.0)
    with pytest.raises(ValueError, match="horizon_years"):
        tco(1.0, 1.0, 0.0, horizon_years=0)


# ---------------------------------------------------------------- counts equal the inventory's


def _brute_force_counts(snap: CampusSnapshot) -> dict[str, float]:
    """Switches, cables and optical modules by walking every box, every cable and every end of it."""
    switches = 0
    for s in snap.switches:
        for _ in range(s.count):
            switches += 1
    rack_nics = {
        r.id: {snap.node_models[slug].nic_kind for slug, _ in r.nodes} for r in snap.racks if r.nodes
    }
    cables, modules = 0, 0.0
    for x in snap.links:
        optical = (
            snap.media[x.medium].is_optical
            if x.medium in snap.media
            else x.medium in ("sr", "dr", "fr", "zr")
        )
        for _ in range(x.count):
            cables += 1
            if not optical:
                continue
            for end_is_switch in (x.a_switch_id is not None, x.b_switch_id is not None):
                modules += 1 if end_is_switch else 0
            if x.a_rack_id is not None:
                # a twin-port NIC module serves two ports: half a module per cable
                modules += 0.5 if rack_nics.get(x.a_rack_id) == {"dual-port"} else 1.0
    return {
        "switch": switches,
        "cable": cables,
        "optic": modules,
        "server": sum(n for r in snap.racks for _, n in r.nodes),
        "rack": len(snap.racks),
        "rack-power": sum(1 for f in snap.power_feeds if f.rack_id is not None),
        "rack-cooling": sum(1 for r in snap.racks if r.cooling_type == "direct-to-chip"),
        "power-device": len(snap.power_devices),
        "utility-feed": len(snap.utility_feeds),
        "energy-storage": len(snap.energy_storage),
        "cooling-unit": len(snap.cooling_units),
        "cooling-plant": len(snap.cooling_plants),
        "building": len(snap.buildings),
    }


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    gpus=st.sampled_from([64, 256, 512, 1024]),
    fabric=st.sampled_from(["infiniband-ndr", "spectrum-x", "tomahawk5"]),
    topology=st.sampled_from(["rail-optimized", "middle-of-rack"]),
    cooling=st.sampled_from(["liquid", "air"]),
    power_redundancy=st.sampled_from(["N", "N+1", "2N"]),
    nic=st.sampled_from([None, "dual-port"]),
)
def test_every_switch_module_and_cable_appears_once(gpus, fabric, topology, cooling, power_redundancy, nic):
    if nic == "dual-port" and fabric != "infiniband-ndr":
        nic = None
    try:
        spec = generate_spec(
            "P",
            gpus,
            fabric=fabric,
            topology=topology,
            cooling=cooling,
            power_redundancy=power_redundancy,
            nic=nic,
            hall_max_it_mw=0.4,
            building_max_it_mw=1.0,
            pod_max_gpus=256,
        )
    except Exception as exc:  # a combination the generator refuses is not a case
        if type(exc).__name__ == "GeneratorError":
            return
        raise
    snap = spec_snapshot(spec)
    expected = _brute_force_counts(snap)
    assert set(expected) == set(COUNTED_KINDS)
    assert expected["rack-power"] > 0 and expected["rack"] > 0
    whole = campus_bom(snap)
    for group in ("campus", "building", "hall", "pod"):
        bom = campus_bom(snap, group)
        for kind, n in expected.items():
            assert bom.count(kind) == pytest.approx(n), kind
        # grouping only splits the lines: every category's total stays
        for category, usd in whole.capex_usd().items():
            assert bom.capex_usd()[category] == pytest.approx(usd), (group, category)
        # and every line of a split adds back to its ungrouped line
        split, joined = _by_line(bom), _by_line(whole)
        assert split.keys() == joined.keys()
        for key, (count, usd) in joined.items():
            assert split[key][0] == pytest.approx(count) and split[key][1] == pytest.approx(usd), key


def _by_line(bom) -> dict[tuple[str, str, str], tuple[float, float]]:
    out: dict[tuple[str, str, str], tuple[float, float]] = {}
    for x in bom.lines:
        count, usd = out.get((x.kind, x.item, x.detail), (0.0, 0.0))
        out[(x.kind, x.item, x.detail)] = (count + x.count, usd + x.total_usd)
    return out


def test_every_price_row_is_in_the_docs_with_its_source():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "capex.md").read_text(encoding="utf-8")
    missing = [r.key for r in price_catalog() if f"`{r.key}`" not in doc]
    assert missing == []
    assert all(r.source and r.unit and r.year >= 2019 for r in price_catalog())


@given(
    capex=st.floats(0, 1e10),
    energy=st.floats(0, 1e9),
    horizon=st.integers(1, 49),
    rate=st.floats(0.0, 0.49),
)
def test_tco_grows_with_the_horizon_and_falls_with_the_rate(capex, energy, horizon, rate):
    base = tco(capex, energy, 0.0, horizon, rate)["total_usd"]
    assert tco(capex, energy, 0.0, horizon + 1, rate)["total_usd"] >= base
    assert tco(capex, energy, 0.0, horizon, rate + 0.01)["total_usd"] <= base * (1 + 1e-12) + 1e-6
    # never more than the undiscounted sum, never less than the capex
    assert capex - 1e-6 <= base <= capex + energy * horizon * (1 + 1e-12) + 1e-6


def test_a_campus_fabric_priced_by_hand():
    """The 3-tier Spectrum-X design of 98,304 H100 (24 rail islands of 4,096 end points at 7:1) at the catalog's
    prices: 2,534 SN5600 at $45,000; 98,304 node-leaf SR links of 30 m (2 modules at $650, 30 m of fibre at
    $2.5 and $40 of terminations), 98,304 leaf-spine SR links of 40 m, 14,064 FR links of 600 m between
    buildings (2 modules at $1,300)."""
    switch = catalog_specs()["switch_models"]["spectrum-x-sn5600"]
    design = design_campus_fabric([4096] * 24, switch, "rail-optimized", 7.0)
    cost = campus_fabric_design_cost(design, "spectrum-x-sn5600")
    assert cost["switches_usd"] == pytest.approx(2534 * 45_000)
    node_leaf = 98_304 * (2 * 650 + 30 * 2.5 + 40)
    leaf_spine = 98_304 * (2 * 650 + 40 * 2.5 + 40)
    between = 14_064 * (2 * 1300 + 600 * 2.5 + 40)
    assert cost["total_usd"] == pytest.approx(2534 * 45_000 + node_leaf + leaf_spine + between)
