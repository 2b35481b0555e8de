"""The generator's 2N designs achieve 2N (docs/generator.md, "Redundancy options").

The truth is the definition of 2N (docs/model.md, "Achieved redundancy"; Uptime Institute Tier III and IV
asked together): any one element out for maintenance, then any single other element failed, and no GPU
is lost. The pair search reads the level; on a small campus every pair of elements is also failed
through impact mode, with no search and no pruning. The generated 2N is 2(N+1) (Schneider Electric
WP 75): each side's k + 1 UPS blocks carry the hall with one lost, each rack on two whips a side.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.analysis.impact import impact
from campus.analysis.power import power_graph
from campus.analysis.redundancy import redundancy_elements
from campus.analysis.redundancy_levels import domain_level
from campus.interchange.demo import demo_spec
from campus.interchange.generate import generate_spec
from campus.interchange.generator.common import Catalog
from campus.interchange.spec_snapshot import spec_snapshot

SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}


def _levels(snap) -> dict[str, str]:
    return {domain: domain_level(snap, domain).achieved for domain in ("power", "cooling")}


@pytest.mark.parametrize(
    "params",
    [
        {"gpus": 1024, "cooling_redundancy": "N+1"},
        {"gpus": 1024, "cooling_redundancy": "2N"},
        {"gpus": 4096, "cooling": "air", "cooling_redundancy": "2N", "hall_max_it_mw": 2.0},
        {"gpus": 576, "gpu_model": "gb300", "power_architecture": "dc-800", "cooling_redundancy": "2N"},
        {"gpus": 576, "gpu_model": "gb200", "power_architecture": "dc-400", "cooling_redundancy": "N+1"},
        {"gpus": 2048, "gpu_model": "mi300x", "cooling": "air", "cooling_redundancy": "N+1"},
        {"mix": [{"gpu_model": "h100-sxm", "gpus": 1024}, {"gpu_model": "a100-sxm", "gpus": 512}]},
    ],
    ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items() if k != "mix") or "mix",
)
def test_generated_2n_achieves_2n_in_both_domains(params):
    snap = spec_snapshot(generate_spec("G", power_redundancy="2N", **params))
    cooling = params.get("cooling_redundancy", "N+1")
    assert _levels(snap) == {"power": "2N", "cooling": cooling}


@st.composite
def designs(draw) -> dict:
    gpu_model = draw(st.sampled_from(["h100-sxm", "mi300x", "gb200", "a100-sxm"]))
    per = 72 if gpu_model == "gb200" else 8
    return {
        "gpus": draw(st.integers(2, 24)) * per * (1 if gpu_model == "gb200" else 4),
        "gpu_model": gpu_model,
        "cooling": "liquid" if gpu_model == "gb200" else draw(st.sampled_from(["liquid", "air"])),
        "hall_max_it_mw": draw(st.sampled_from([0.3, 1.0, 5.0])),
        "racks_per_row": draw(st.sampled_from([4, 8, 16])),
        "power_architecture": draw(st.sampled_from(["ac", "dc-800", "dc-400"])),
        "cooling_redundancy": draw(st.sampled_from(["N+1", "2N"])),
    }


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs())
def test_every_generated_2n_design_reads_declared_equal_achieved(params):
    snap = spec_snapshot(generate_spec("H", power_redundancy="2N", **params))
    assert _levels(snap) == {"power": "2N", "cooling": params["cooling_redundancy"]}


def test_every_pair_of_a_small_2n_campus_failed_through_impact_loses_no_gpu():
    # no search: every element, then every pair of them, failed through impact mode's compound failure
    snap = spec_snapshot(generate_spec("P", 256, power_redundancy="2N", cooling_redundancy="2N", **SMALL))
    g = power_graph(snap)
    gpus = {r for r in g.racks if g.rack_gpu_count.get(r, 0) > 0}
    elements = [(kind, i) for kind, i, _ in redundancy_elements(snap)]
    lost = []
    for pair in combinations(elements, 2):
        out = impact(snap, failed=list(pair))
        dark = (set(out.racks_lost_both) | set(out.racks_lost_cooling)) & gpus
        if dark:
            lost.append((pair, len(dark)))
    assert len(elements) > 40 and lost == []


def test_a_pair_of_one_whip_of_each_side_leaves_the_other_two_carrying_the_rack():
    # the rack's four whips: A1 out for maintenance, B1 failed; A2 and B2 carry half the rack each
    spec = generate_spec("W", 256, power_redundancy="2N", **SMALL)
    snap = spec_snapshot(spec)
    rack = spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]
    ids = {d.name: d.id for d in snap.power_devices}
    out = impact(snap, failed=[("power", ids[rack["feed_a"]]), ("power", ids[rack["feed_b"]])])
    assert (out.gpus_lost_power, out.gpus_lost_cooling, out.new_trips) == (0, 0, 0)


def test_the_demo_campus_reads_declared_equal_achieved():
    snap = spec_snapshot(demo_spec(Catalog.defaults()))
    assert (snap.power_redundancy, snap.cooling_redundancy) == ("2N", "N+1")
    assert _levels(snap) == {"power": "2N", "cooling": "N+1"}
