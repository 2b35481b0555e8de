"""The redundancy list is exactly what impact mode finds element by element (docs/model.md, "Redundancy
check"): a brute-force sweep fails every utility feed, every power device (generators included, whatever
their place), every cooling unit and every cooling plant of small generated campuses through ``impact``,
and the set of elements whose loss costs GPUs or trips another element must equal the redundancy list.

One campus of each has a PDU re-kinded ``generator``: it stays in the middle of the chain, so its loss
costs every GPU it feeds, and the list must still name it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from campus.analysis.impact import impact
from campus.analysis.power import rollup
from campus.analysis.redundancy import redundancy_check
from campus.interchange.generate import generate_spec
from tests.analysis.spec_snapshot import spec_snapshot

SMALL = {"hall_max_it_mw": 0.2, "building_max_it_mw": 0.5, "racks_per_row": 4, "pod_max_gpus": 256}
PARAMS = [
    {"cooling": "air", "power_redundancy": "N"},
    {"cooling": "air", "power_redundancy": "2N", "cooling_redundancy": "N"},
    {"cooling": "liquid", "power_redundancy": "N+1"},
    {"cooling": "liquid", "power_redundancy": "N", "cooling_redundancy": "N"},
]


def _rekinded(snap):
    """The first PDU re-kinded ``generator``, its feeds unchanged."""
    pdu = min(d.id for d in snap.power_devices if d.kind == "pdu")
    devices = tuple(replace(d, kind="generator") if d.id == pdu else d for d in snap.power_devices)
    return replace(snap, power_devices=devices), pdu


def _campuses():
    """Each generated campus as it is, and with its first PDU re-kinded (``pdu``; ``named``: the PDU when
    the list must name it)."""
    for p in PARAMS:
        snap = spec_snapshot(generate_spec("P", 256, **p, **SMALL))
        yield pytest.param(snap, None, None, id="-".join(p.values()))
        rekinded, pdu = _rekinded(snap)
        # at N the PDU is the one path of its racks: re-kinded, its loss still costs them
        named = pdu if p["power_redundancy"] == "N" else None
        yield pytest.param(rekinded, pdu, named, id="-".join(p.values()) + "-pdu-as-generator")


def _brute_force(snap) -> dict[tuple[str, int], int]:
    design_trips = {(k, i) for k, i, _ in rollup(snap).tripped}
    elements = (
        [("utility", u.id) for u in snap.utility_feeds]
        + [("power", d.id) for d in snap.power_devices]
        + [("cooling", u.id) for u in snap.cooling_units]
        + [("plant", p.id) for p in snap.cooling_plants]
    )
    out = {}
    for kind, ident in elements:
        im = impact(snap, ident, kind)
        trips = [t for t in im.tripped if (t[0], t[1]) not in design_trips]
        if trips or im.gpus_lost:
            out[(kind, ident)] = im.gpus_lost
    return out


@pytest.mark.parametrize(("snap", "pdu", "named"), list(_campuses()))
def test_redundancy_list_equals_a_brute_force_impact_sweep(snap, pdu, named):
    expected = _brute_force(snap)
    got = {(f.device_kind, f.device_id): f.gpus_lost for f in redundancy_check(snap)}
    assert got == expected
    # standby generators beside the utility are never single points alone
    standby = {d.id for d in snap.power_devices if d.kind == "generator"} - {pdu}
    assert not {i for k, i in got if k == "power"} & standby
    if named is not None:
        # the re-kinded PDU is in the middle of the chain: impact says it costs GPUs, and the list names it
        im = impact(snap, named, "power")
        assert 0 < got[("power", named)] == im.gpus_lost <= im.usable_gpus_before
