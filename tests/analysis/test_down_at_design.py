"""A campus with racks already down at design (a device offline, a cooling unit stopped): what it runs and
what a further failure costs.

The hall (``builders.two_n``): utility 1 -> UPS 1 -> PDU 11 (A), utility 2 -> UPS 2 -> PDU 12 (B), two
racks of ten 1 kW toy servers (10 kW, 80 GPUs each), fed A and B. Here the racks are air-cooled by one
30 kW CRAH supplied by PDU 13 (from UPS 2), and PDU 13 is offline: at design the CRAH is stopped, both
racks are powered but without cooling, so 0 GPUs are usable before anything fails.
"""

from __future__ import annotations

import pytest

from campus.analysis.failures import fail
from campus.analysis.impact import impact
from tests.analysis.builders import CoolingUnitSnap, device, feed, replace, two_n


def _uncooled_at_design():
    snap = two_n((10, 10))
    racks = tuple(replace(r, cooling_type="air", cooling_unit_id=1) for r in snap.racks)
    crah = CoolingUnitSnap(1, "CRAH-1", "crah", 30.0, 18.0, 30.0, 0.0, None, 13, 1)
    return replace(
        snap,
        racks=racks,
        cooling_units=(crah,),
        power_devices=snap.power_devices + (device(13, "pdu", 100.0, status="offline"),),
        power_feeds=snap.power_feeds + (feed(2, dev=13, side="B", fid=3),),
    )


def test_losing_power_to_racks_already_uncooled_costs_no_gpu():
    snap = _uncooled_at_design()
    both = [("power", 11), ("power", 12)]
    im = impact(snap, failed=both)
    # by hand: 2 racks x 80 GPUs, none usable before (no cooling at design), none after (no power):
    # the loss is 0 GPUs, never more than the 0 usable before
    assert im.usable_gpus_before == 0
    assert im.gpus_uncooled_at_design == 160
    assert im.gpus_lost == 0 <= im.usable_gpus_before
    res = fail(snap, both)
    assert res.gpus_lost_power + res.gpus_lost_cooling == 0


def _pdu_a_offline():
    """Three 10 kW racks (80 GPUs each). Racks 1 and 2 on PDU 11 (A) / PDU 12 (B), 15 kW rated; rack 3 on
    PDU 21 (A, from UPS 1) / PDU 22 (B, from UPS 2), 100 kW. PDU 11 is offline, so PDU 12 carries racks 1
    and 2 alone: 20 kW > 15 kW rated, it trips at design load and racks 1 and 2 are dark before anything
    fails. Rack 3 runs."""
    snap = two_n((10, 10, 10), pdu_rated_kw=15.0, power_redundancy="2N")
    devices = tuple(replace(d, status="offline") if d.id == 11 else d for d in snap.power_devices) + (
        device(21, "pdu", 100.0),
        device(22, "pdu", 100.0),
    )
    feeds = tuple(f for f in snap.power_feeds if f.rack_id != 3) + (
        feed(1, dev=21, side="A", fid=3),
        feed(2, dev=22, side="B", fid=4),
        feed(21, rack=3, side="A", fid=103),
        feed(22, rack=3, side="B", fid=203),
    )
    return replace(snap, power_devices=devices, power_feeds=feeds)


def test_declared_2n_with_racks_dark_at_design_is_an_error():
    from campus.analysis.redundancy import design_redundancy

    power = design_redundancy(_pdu_a_offline())[0]
    # no single point is left to find (PDU 12 is already tripped), yet racks 1 and 2 (160 GPUs) are dark
    assert power["domain"] == "power" and power["declared"] == "2N"
    assert power["single_points"] == []
    assert power["severity"] == "error"
    assert power["achieved"] == "N"
    assert (power["racks_down_at_design"], power["gpus_down_at_design"]) == ([1, 2], 160)
    assert "2 racks (160 GPUs) already without power" in power["message"]


def test_the_summary_counts_what_runs_at_design():
    from campus.analysis.summary import campus_summary

    s = campus_summary(_pdu_a_offline())
    p, c = s["power"], s["compute"]
    # by hand: design IT 3 racks x 10 kW = 30 kW; running, rack 3 alone: 10 kW. The campus's typed PUE
    # 1.2: facility 12 kW running (36 kW design). A year at $0.10/kWh: 12 kW x 8,760 h x 0.10 = $10,512
    # running ($31,536 design); energy 105,120 kWh = 1.0512e-4 TWh running (3.1536e-4 design).
    assert p["racks_without_power"] == 2
    assert (p["racks_down_at_design"], p["gpus_down_at_design"]) == (2, 160)
    assert p["it_mw"] == pytest.approx(0.010)
    assert p["design_it_mw"] == pytest.approx(0.030)
    assert p["facility_mw"] == pytest.approx(0.012)
    assert p["design_facility_mw"] == pytest.approx(0.036)
    assert p["annual_cost_usd"] == pytest.approx(10_512.0)
    assert p["design_annual_cost_usd"] == pytest.approx(31_536.0)
    assert p["annual_energy_twh"] == pytest.approx(1.0512e-4)
    assert p["design_annual_energy_twh"] == pytest.approx(3.1536e-4)
    # compute: the toy GPU's 100 TFLOPS BF16; 80 GPUs run = 8 PFLOPS peak, 3.2 at the default 40 % MFU;
    # design 240 GPUs = 24 PFLOPS peak, 9.6 effective
    assert c["peak_pflops"]["bf16"] == pytest.approx(8.0)
    assert c["effective_pflops"]["bf16"] == pytest.approx(3.2)
    assert c["effective_pflops_synchronous"]["bf16"] == pytest.approx(3.2)
    assert c["design_peak_pflops"]["bf16"] == pytest.approx(24.0)
    assert c["design_effective_pflops"]["bf16"] == pytest.approx(9.6)
