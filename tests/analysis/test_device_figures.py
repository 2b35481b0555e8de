"""A power device's figures (``campus.analysis.device_figures``) on hand-built 2N chains: the worst single failure
of a PDU is its partner on the other side, which hands over the racks' other half; a UPS's own sources are not
'failures that move load onto it' (they take it down: impact mode's answer)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.device_figures import device_figures, partner_devices
from tests.analysis.builders import replace, two_n


def test_a_pdu_of_a_2n_pair_carries_both_halves_when_its_partner_fails():
    # Two racks of 10 kW (toy servers, 1 kW each), fed A by PDU 11 and B by PDU 12, efficiency 1: each PDU
    # carries half of 20 kW now, and all of it once the other side fails. Usable is 80 % of 100 kW.
    figures = device_figures(two_n((10, 10)), 11)
    assert figures.load_kw == pytest.approx(10.0)
    assert figures.headroom_kw == pytest.approx(80.0 - 10.0)
    assert figures.worst is not None
    assert figures.worst.load_kw == pytest.approx(20.0)
    assert figures.worst.headroom_kw == pytest.approx(80.0 - 20.0)
    assert figures.worst.device_id in {
        2,
        12,
    }  # the B side: its UPS or its PDU, either hands the same 10 kW over


def test_a_devices_partners_are_the_other_side_never_its_own_sources_or_loads():
    snap = two_n((10, 10))
    assert partner_devices(snap, 11) == [2, 12]
    assert partner_devices(snap, 1) == [2, 12]


def test_a_device_with_no_partner_has_no_worst_failure():
    snap = two_n((10,))
    # Drop side B: PDU 11 alone feeds the rack; nothing else's failure moves load onto it.
    one_side = replace(
        snap,
        power_feeds=tuple(f for f in snap.power_feeds if f.side != "B"),
        power_devices=tuple(d for d in snap.power_devices if d.id in (1, 11)),
    )
    figures = device_figures(one_side, 11)
    assert figures.worst is None and figures.failures_tried == 0


def test_an_unknown_device_is_a_value_error_naming_the_field():
    with pytest.raises(ValueError, match="^device: "):
        device_figures(two_n(), 999)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=6))
def test_after_the_partner_fails_a_2n_pdu_carries_every_racks_whole_load(loads):
    snap = two_n(tuple(loads), pdu_rated_kw=1000.0)
    figures = device_figures(snap, 11)
    total = float(sum(loads))  # toy servers draw 1 kW each
    assert figures.load_kw == pytest.approx(total / 2)
    if total:
        assert figures.worst is not None and figures.worst.load_kw == pytest.approx(total)
