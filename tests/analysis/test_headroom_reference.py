"""The incremental failover headroom gives the results of the per-scenario re-solve it replaced
(``tests.analysis.headroom_reference``, kept verbatim), over the generator's parameter space.

Every device's and utility feed's healthy and worst load, and every hall's, building's and the campus'
headroom, agree to float rounding; the worst failure and the binding element and failure are the same, or a
tie: the reference's own value for the pair the new code names is within float rounding of its minimum.

Pure: the spec becomes a snapshot in memory (``spec_snapshot``); no database.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.headroom.chain import _compute
from campus.analysis.power import power_graph
from campus.interchange.generate import generate
from campus.interchange.generator.common import COOLING_REDUNDANCY, POWER_REDUNDANCY
from campus.interchange.spec_snapshot import spec_snapshot
from tests.analysis import headroom_reference as reference

REL = 1e-9
ABS = 1e-9

VARIANTS = list(itertools.product(POWER_REDUNDANCY, COOLING_REDUNDANCY))
GPU_MODELS = ["h100-sxm", "mi300x", "a100-sxm", "gb200"]


def key(failure) -> tuple:
    """A failure of either module, comparable."""
    return (failure.kind, failure.id, failure.name)


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == pytest.approx(b, rel=REL, abs=ABS)


def assert_same_element(new, ref) -> None:
    assert new.keys() == ref.keys()
    for ident, row in new.items():
        old = ref[ident]
        assert (row.kind, row.name, row.limit_kw) == (old.kind, old.name, old.limit_kw)
        assert close(row.load_kw, old.load_kw), (row.name, row.load_kw, old.load_kw)
        assert close(row.worst_load_kw, old.worst_load_kw), (row.name, row.worst_load_kw, old.worst_load_kw)
        if key(row.worst_failure) != key(old.worst_failure):
            # a tie: the reference loads the element as much in the failure named here
            loads = {key(f): kw for f, kw in old.__dict__.get("loads", {}).items()}
            assert key(row.worst_failure) in loads, (row.name, row.worst_failure, old.worst_failure)
            assert close(loads[key(row.worst_failure)], old.worst_load_kw), (row.name, row.worst_failure)


def assert_same_scope(new, ref, offers) -> None:
    assert (new.scope, new.id, new.placement) == (ref.scope, ref.id, ref.placement)
    assert close(new.it_kw, ref.it_kw)
    assert close(new.headroom_kw, ref.headroom_kw), (new.scope, new.id, new.headroom_kw, ref.headroom_kw)
    if new.headroom_kw is None:
        assert new.binding_id is None and ref.binding_id is None
        return
    pair = ((new.binding_kind, new.binding_id, new.binding_name), key(new.binding_failure))
    if pair != ((ref.binding_kind, ref.binding_id, ref.binding_name), key(ref.binding_failure)):
        # a tie: the reference offered the pair named here at its minimum, to float rounding
        offers = {(element, key(f)): v for (element, f), v in offers.items()}
        assert pair in offers, (new.scope, new.id, pair)
        assert close(offers[pair], ref.headroom_kw), (new.scope, new.id, pair, offers[pair])


def assert_same_headroom(snap) -> None:
    g = power_graph(snap)
    new = _compute(g)
    ref = reference._compute(g)
    assert new.scenarios == ref.scenarios
    assert_same_element(new.devices, ref.devices)
    assert_same_element(new.utilities, ref.utilities)
    assert new.halls.keys() == ref.halls.keys() and new.buildings.keys() == ref.buildings.keys()
    for h, row in new.halls.items():
        assert_same_scope(row, ref.halls[h], ref.offers.get(("hall", h), {}))
    for b, row in new.buildings.items():
        assert_same_scope(row, ref.buildings[b], ref.offers.get(("building", b), {}))
    assert_same_scope(new.campus, ref.campus, ref.offers[("campus", None)])


@st.composite
def designs(draw) -> dict:
    """Small generated campuses: one GPU model or a mix, every power and cooling redundancy option, both
    cooling kinds, sometimes laid out in phases."""
    models = draw(st.lists(st.sampled_from(GPU_MODELS), min_size=1, max_size=2, unique=True))
    power, cool = draw(st.sampled_from(VARIANTS))
    cooling = "liquid" if "gb200" in models else draw(st.sampled_from(["liquid", "air"]))
    counts = [draw(st.integers(2, 24)) * (72 if m == "gb200" else 64) for m in models]
    params = {
        "cooling": cooling,
        "hall_max_it_mw": draw(st.sampled_from([1.0, 2.0, 5.0])),
        "racks_per_row": draw(st.sampled_from([8, 16])),
        "power_redundancy": power,
        "cooling_redundancy": cool,
    }
    params["fabric"] = draw(st.sampled_from(["infiniband-ndr", "roce-200ge"]))  # every vendor offers both
    if len(models) == 2 and draw(st.booleans()):
        params["phases"] = [
            {"date": f"202{7 + i}-01-01", "gpus": n, "gpu_model": m}
            for i, (m, n) in enumerate(zip(models, counts, strict=True))
        ]
    else:
        params["mix"] = [{"gpu_model": m, "gpus": n} for m, n in zip(models, counts, strict=True)]
    return params


@settings(max_examples=30, deadline=None)
@given(designs(), st.data())
def test_incremental_headroom_equals_the_reference(params, data):
    snap = spec_snapshot(generate("H", **params).spec)
    assert_same_headroom(snap)
    # some devices out of service and some racks idle: dead chains, racks placed by design
    devices = snap.power_devices
    failed = data.draw(st.sets(st.integers(0, len(devices) - 1), max_size=3))
    idle = data.draw(st.sets(st.integers(0, len(snap.racks) - 1), max_size=4))
    snap = replace(
        snap,
        power_devices=tuple(replace(d, status="failed") if i in failed else d for i, d in enumerate(devices)),
        racks=tuple(
            replace(r, nodes=(), extra_it_kw=0.0) if i in idle else r for i, r in enumerate(snap.racks)
        ),
    )
    assert_same_headroom(snap)


def test_a_16k_design_and_its_n_and_n_plus_1_variants_equal_the_reference():
    for power in POWER_REDUNDANCY:
        assert_same_headroom(spec_snapshot(generate("H", gpus=16_384, power_redundancy=power).spec))
