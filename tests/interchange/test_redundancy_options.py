"""The generator's redundancy options: ``power_redundancy`` (N, N+1, 2N) x ``cooling_redundancy``
(N, N+1, 2N).

Truth from outside the code: every element of a generated design is failed alone through impact mode
(the brute force) and the elements whose loss costs GPUs or trips another must be exactly the redundancy
list; an N design has such elements, an N+1 or 2N domain none. Installed capacity is checked against a
hand calculation from the spec's own figures (hall IT, cooling units, catalog efficiencies, the NEC 80 %
planning limit): N installs the load once, N+1 with k blocks (k + 1)/k times, 2N twice.

Pure: the spec becomes a snapshot in memory (``spec_snapshot``); no database.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus import catalog_data as cat
from campus.analysis.capex import infrastructure_capex, installed_capacity
from campus.analysis.headroom import failover_headroom
from campus.analysis.impact import impact
from campus.analysis.power import baseline_rollup
from campus.analysis.redundancy import (
    DOMAIN_OF_KIND,
    design_redundancy,
    redundancy_check,
    redundancy_declaration_checks,
)
from campus.analysis.redundancy_levels import domain_level
from campus.analysis.weather import CLIMATES
from campus.interchange.generate import GeneratorError, generate
from campus.interchange.generator.common import COOLING_REDUNDANCY, POWER_REDUNDANCY
from campus.interchange.spec_snapshot import spec_snapshot
from tests.interchange.design_checks import design_problems

VARIANTS = list(itertools.product(POWER_REDUNDANCY, COOLING_REDUNDANCY))


def brute_force(snap) -> dict[tuple[str, int], tuple[int, int, int]]:
    """Every power device (generators too), utility feed, cooling unit and plant failed alone through
    impact mode: the ones whose loss costs GPUs (without power, or powered and uncooled) or trips
    another element, with (GPUs without power, GPUs uncooled, new trips)."""
    elements = [("power", d.id) for d in snap.power_devices]
    elements += [("utility", u.id) for u in snap.utility_feeds]
    elements += [("cooling", u.id) for u in snap.cooling_units]
    elements += [("plant", p.id) for p in snap.cooling_plants]
    out = {}
    for kind, ident in elements:
        res = impact(snap, ident, kind)
        if res.gpus_lost or res.new_trips:
            out[(kind, ident)] = (res.gpus_lost_power, res.gpus_lost_cooling, res.new_trips)
    return out


@st.composite
def small_designs(draw) -> dict:
    gpu_model = draw(st.sampled_from(["h100-sxm", "mi300x", "gb200", "a100-sxm"]))
    per = 72 if gpu_model == "gb200" else 8
    cooling = "liquid" if gpu_model == "gb200" else draw(st.sampled_from(["liquid", "air"]))
    power, cool = draw(st.sampled_from(VARIANTS))
    return {
        "gpus": draw(st.integers(4, 60)) * per * (1 if gpu_model == "gb200" else 8),
        "gpu_model": gpu_model,
        "cooling": cooling,
        "hall_max_it_mw": draw(st.sampled_from([1.0, 2.0, 5.0, 20.0])),
        "racks_per_row": draw(st.sampled_from([8, 16, 32])),
        "topology": draw(st.sampled_from(["rail-optimized", "middle-of-rack"])),
        "climate": draw(st.sampled_from(CLIMATES)),
        "power_redundancy": power,
        "cooling_redundancy": cool,
    }


@settings(max_examples=25, deadline=None)
@given(small_designs())
def test_brute_force_finds_exactly_the_redundancy_list(params):
    snap = spec_snapshot(generate("R", **params).spec)
    found = brute_force(snap)
    listed = {(f.device_kind, f.device_id) for f in redundancy_check(snap)}
    assert set(found) == listed
    by_domain = {"power": [], "cooling": []}
    for (kind, _), lost in found.items():
        by_domain[DOMAIN_OF_KIND[kind]].append(lost)
    for domain, level in (("power", params["power_redundancy"]), ("cooling", params["cooling_redundancy"])):
        if level == "N":
            # an N design has single points, and the loss of one drops IT load
            assert any(power + cooled > 0 for power, cooled, _ in by_domain[domain]), domain
        else:
            assert by_domain[domain] == [], domain
    # every other check the generator's designs pass, the asked-for single points excepted
    assert design_problems(snap) == []
    checks = {c["domain"]: c for c in design_redundancy(snap)}
    for domain, level in (("power", params["power_redundancy"]), ("cooling", params["cooling_redundancy"])):
        assert checks[domain]["declared"] == level
        if level == "2N":
            # verified by the pair search (one out for maintenance, then one failed): the generator's 2N is
            # 2(N+1), which that reads as 2N (docs/model.md, "Achieved redundancy"); but a cooling unit or
            # plant has two feeds, so the pair of them stops it, and an N cooling pool has no unit to spare
            achieved = domain_level(snap, domain).achieved
            assert achieved == ("N+1" if domain == "power" and params["cooling_redundancy"] == "N" else "2N")
            assert checks[domain]["achieved"] == achieved
            assert checks[domain]["severity"] == ("ok" if achieved == "2N" else "error")
        else:
            assert checks[domain]["severity"] == ("warning" if level == "N" else "ok")
    # with both utility feeds lost every GPU stays powered and cooled on the generators
    out = impact(snap, failed=[("utility", u.id) for u in snap.utility_feeds])
    assert (out.gpus_lost_power, out.gpus_lost_cooling, out.new_trips) == (0, 0, 0)


def test_n_plus_1_and_2n_variants_of_a_4k_design_have_no_single_point():
    for power, cooling in VARIANTS:
        snap = spec_snapshot(
            generate("R", gpus=4096, power_redundancy=power, cooling_redundancy=cooling).spec
        )
        found = brute_force(snap)
        domains = {DOMAIN_OF_KIND[kind] for kind, _ in found}
        assert domains == {d for d, level in (("power", power), ("cooling", cooling)) if level == "N"}


# ---------------------------------------------------------------- installed capacity by hand

EFF = {k: cat.device_efficiency(k) for k in ("pdu", "ups", "switchgear", "transformer")}
PLANNING = cat.default_value("max_utilization")  # NEC 80 % continuous load
MODULE_KW = 3000.0  # the generator's UPS module (docs/generator.md)


def _ceil_to(value: float, step: float) -> float:
    return math.ceil(value / step - 1e-9) * step


def _hand_loads(spec: dict) -> tuple[float, float]:
    """What the hall's UPS and transformers take in, kW, from the spec alone: the hall's IT (servers,
    network, other IT: ``design_it_mw``) and its cooling units' fans and pumps at full capacity (catalog
    0.02 kW of pump per kW for a CDU, 0.04 kW of fan for a CRAH) through the PDU, then the UPS."""
    (hall,) = [h for b in spec["buildings"] for h in b["halls"]]
    fraction = {
        "cdu": cat.default_value("cdu_pump_kw_per_kw_heat"),
        "crah": cat.default_value("crah_fan_kw_per_kw_heat"),
    }
    mech_kw = sum(u["capacity_kw"] * fraction[u["kind"]] for u in spec["cooling_units"])
    ups_in = (hall["design_it_mw"] * 1000 + mech_kw) / EFF["pdu"] / EFF["ups"]
    return ups_in, ups_in / EFF["switchgear"] / EFF["transformer"]


def _rated(spec: dict, kind: str) -> list[float]:
    return [d["rated_kw"] for d in spec["power_devices"] if d["kind"] == kind]


def test_installed_capacity_matches_the_hand_calculation():
    specs = {p: generate("R", gpus=4096, power_redundancy=p).spec for p in POWER_REDUNDANCY}
    ups_in, tx_in = _hand_loads(specs["N"])
    assert _hand_loads(specs["2N"]) == pytest.approx((ups_in, tx_in), rel=1e-3)
    # N: one UPS system and one transformer for the load, at the planning limit (1x)
    assert _rated(specs["N"], "ups") == [_ceil_to(ups_in / PLANNING, 100)]
    assert _rated(specs["N"], "transformer") == [_ceil_to(tx_in / PLANNING, 500)]
    # 2N as 2(N+1) (Schneider Electric WP 75): each side carries everything, so twice N's transformers;
    # each side has k + 1 blocks (switchgear and one UPS module) of which any k carry the whole load,
    # k as in N+1 below: 2(k + 1) modules of ups_in / k each, 2(k + 1)/k of the load installed (here k = 3:
    # 8 modules, 2.67x), plus each module's rounding to 100 kW (the block's switchgear to 500 kW)
    k = max(2, math.ceil(ups_in / (MODULE_KW * PLANNING)))
    assert sum(_rated(specs["2N"], "transformer")) == 2 * _ceil_to(tx_in / PLANNING, 500)
    assert _rated(specs["2N"], "ups") == [_ceil_to(ups_in / k / PLANNING, 100)] * (2 * (k + 1))
    need = 2 * (k + 1) / k * ups_in / PLANNING
    assert need <= sum(_rated(specs["2N"], "ups")) <= need + 2 * (k + 1) * 100
    hall_swgr = [d["rated_kw"] for d in specs["2N"]["power_devices"] if "-SWGR-" in d["name"]]
    assert hall_swgr == [_ceil_to(ups_in / k / EFF["switchgear"] / PLANNING, 500)] * (2 * (k + 1))
    # N+1: k + 1 blocks of one UPS module's size make k; each carries 1/k of the load after any other is
    # lost, so (k + 1)/k of the load is installed, plus each block's rounding (100 kW UPS, 500 kW
    # transformer) and the unevenness of whole racks over the pairs of blocks (at most 2 %)
    ups, tx = _rated(specs["N+1"], "ups"), _rated(specs["N+1"], "transformer")
    assert len(ups) == len(tx) == k + 1
    need_ups, need_tx = (k + 1) / k * ups_in / PLANNING, (k + 1) / k * tx_in / PLANNING
    assert need_ups <= sum(ups) <= need_ups * 1.02 + (k + 1) * 100
    assert need_tx <= sum(tx) <= need_tx * 1.02 + (k + 1) * 500


def test_cost_and_reserve_order_2n_above_n_plus_1_above_n():
    snaps = {p: spec_snapshot(generate("R", gpus=4096, power_redundancy=p).spec) for p in POWER_REDUNDANCY}
    ups = {p: installed_capacity(s).power_kw["ups"] for p, s in snaps.items()}
    tx = {p: installed_capacity(s).power_kw["transformer"] for p, s in snaps.items()}
    capex = {p: infrastructure_capex(s).power_usd for p, s in snaps.items()}
    # capacity installed beyond what the critical load draws: held for redundancy (and the 80 % limit)
    reserve = {
        p: ups[p] - sum(baseline_rollup(s).device_load_kw[d.id] for d in s.power_devices if d.kind == "ups")
        for p, s in snaps.items()
    }
    for figure in (ups, tx, capex, reserve):
        assert figure["2N"] > figure["N+1"] > figure["N"]
    # the load is the same, and every design keeps its load within the planning limit after its worst
    # single failure (an N design: with nothing lost)
    for s in snaps.values():
        assert failover_headroom(s).campus.headroom_kw >= 0


def test_cooling_options_install_n_n_plus_1_and_2n_units():
    specs = {c: generate("R", gpus=4096, cooling_redundancy=c).spec for c in COOLING_REDUNDANCY}

    def units(spec):
        groups: dict[str, list[float]] = {}
        for u in spec["cooling_units"]:
            groups.setdefault(u["group"], []).append(u["capacity_kw"])
        return {g: len(v) for g, v in groups.items()}

    n = units(specs["N"])
    assert units(specs["N+1"]) == {g: c + 1 for g, c in n.items()} or all(
        units(specs["N+1"])[g] >= c + 1 for g, c in n.items()
    )
    assert all(units(specs["2N"])[g] >= 2 * c for g, c in n.items())
    capex = {c: infrastructure_capex(spec_snapshot(s)).cooling_usd for c, s in specs.items()}
    assert capex["2N"] >= capex["N+1"] > capex["N"]


# ---------------------------------------------------------------- declared against achieved


def test_declaration_checks_severity():
    none = {"power": [], "cooling": []}
    spof = {"power": ["B1-H1-UPS-A01"], "cooling": []}
    rows = redundancy_declaration_checks({"power": "N", "cooling": "N+1"}, spof)
    assert [(r["domain"], r["severity"], r["achieved"]) for r in rows] == [
        ("power", "warning", "N"),
        ("cooling", "ok", "N+1"),
    ]
    assert "as an N design has" in rows[0]["message"]
    rows = redundancy_declaration_checks({"power": "2N", "cooling": ""}, spof)
    assert rows[0]["severity"] == "error" and rows[0]["field"] == "campus.power_redundancy"
    assert "declared 2N, achieved N" in rows[0]["message"]
    assert rows[1]["severity"] == "ok" and rows[1]["declared"] == ""
    assert redundancy_declaration_checks({"power": "N"}, none)[0]["severity"] == "ok"


def test_an_imported_spec_declaring_more_than_its_topology_gives_an_error():
    spec = generate("R", gpus=1024, power_redundancy="N").spec
    spec["campus"]["power_redundancy"] = "2N"  # declared, but the chain is a single path
    checks = {c["domain"]: c for c in design_redundancy(spec_snapshot(spec))}
    assert checks["power"]["severity"] == "error"
    assert checks["power"]["single_points"]
    del spec["campus"]["power_redundancy"], spec["campus"]["cooling_redundancy"]
    checks = {c["domain"]: c for c in design_redundancy(spec_snapshot(spec))}
    assert (checks["power"]["declared"], checks["power"]["achieved"], checks["power"]["severity"]) == (
        "",
        "N",
        "ok",
    )


@pytest.mark.parametrize("field", ["power_redundancy", "cooling_redundancy"])
def test_unknown_redundancy_names_the_field(field):
    with pytest.raises(GeneratorError) as err:
        generate("R", gpus=1024, **{field: "3N"})
    assert err.value.field == field


@pytest.mark.parametrize("climate", CLIMATES)
def test_an_n_design_has_no_plant_without_heat_in_any_climate(climate):
    # A small liquid hall has one CDU group: a unit is piped to one plant, so the plant must take the whole
    # unit's heat in the climate's hottest hour rather than a second plant being added that gets nothing.
    snap = spec_snapshot(generate("R", gpus=1024, climate=climate, cooling_redundancy="N").spec)
    assert design_problems(snap) == []
