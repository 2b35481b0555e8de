"""GPUs below TDP (``gpu_power_fraction``): only the GPUs draw less; the other IT (storage, CPU nodes,
management: the allowance ``other_it_fraction``) is worked out at full GPU power and held, as the scenarios
hold it (docs/model.md §2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.analysis.energy import it_breakdown
from campus.analysis.heat import heat_map
from campus.analysis.summary import campus_summary
from campus.analysis.synthetic import synthetic_campus
from tests.analysis.builders import campus, rack


def _two_racks():
    # 2 racks x 10 toy servers (8 x 100 W GPUs + 200 W each): GPUs 16 kW, the rest of the servers 4 kW
    return campus(racks=(rack(1, 10), rack(2, 10)), other_it_fraction=0.1)


def test_other_it_is_held_at_its_full_load_figure_when_the_gpus_draw_half():
    it = it_breakdown(_two_racks(), gpu_power_fraction=0.5, network_kw=1.0)
    # by hand: at full GPU power the servers draw S = 20 kW, itemised network N = 1 kW, k = 0.1/0.9:
    # the allowance is k·S = 2.2222 kW (the network adds to it). At half GPU power the GPUs draw 8 kW, the
    # rest of the servers 4 kW, the network 1 kW and the allowance 2.2222 kW: IT = 15.2222 kW.
    assert it.gpu_kw == pytest.approx(8.0)
    assert it.server_overhead_kw == pytest.approx(4.0)
    assert it.other_it_kw == pytest.approx(20.0 / 9.0)
    assert it.it_kw == pytest.approx(8.0 + 4.0 + 1.0 + 20.0 / 9.0)


def test_the_heat_map_takes_the_same_held_other_it():
    snap = _two_racks()
    # no network: other IT = k·S = 20/9 = 2.2222 kW at every GPU load; at half GPU power the heat is the
    # servers' 12 kW plus that: 14.2222 kW (was 12/0.9 = 13.333 kW)
    hm = heat_map(snap, gpu_power_fraction=0.5)
    assert hm.other_it_kw == pytest.approx(20.0 / 9.0)
    assert hm.it_kw == pytest.approx(12.0 + 20.0 / 9.0)
    assert hm.it_kw == pytest.approx(it_breakdown(snap, gpu_power_fraction=0.5, network_kw=0.0).it_kw)


def test_summary_of_an_8192_gpu_campus_at_half_gpu_power():
    snap = synthetic_campus(8192)
    full = campus_summary(snap, include_redundancy=False)["power"]
    half = campus_summary(snap, gpu_power_fraction=0.5, include_redundancy=False)["power"]
    # by hand: 8,192 H100 x 700 W = 5.7344 MW of GPUs at TDP, 2.8672 MW at half; the rest of the servers
    # 1,024 HGX x 4,600 W = 4.7104 MW. The synthetic campus's allowance is the catalog's 10 % less the
    # fabric it inventories (``synthetic.with_allowance``): IT at full load = (5.7344 + 4.7104) / 0.9 =
    # 11.6053 MW, so network + allowance = 11.6053 − 10.4448 = 1.1605 MW,
    # held at half GPU power: IT = 2.8672 + 4.7104 + 1.1605 = 8.7381 MW (was 7.5776 / 0.9 = 8.4196 MW).
    assert half["gpu_mw"] == pytest.approx(2.8672)
    assert half["server_overhead_mw"] == pytest.approx(4.7104)
    assert full["it_mw"] == pytest.approx(10.4448 / 0.9)
    assert half["network_mw"] + half["other_it_mw"] == pytest.approx(10.4448 / 0.9 - 10.4448)
    assert half["other_it_mw"] == pytest.approx(full["other_it_mw"])
    assert half["it_mw"] == pytest.approx(2.8672 + 4.7104 + 10.4448 / 0.9 - 10.4448)
    assert half["it_mw"] == pytest.approx(8.7381, abs=1e-4)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.0, 1.5),
    st.floats(0.0, 1.5),
    st.floats(0.0, 0.5),
    st.floats(0.0, 10.0),
    st.integers(1, 12),
)
def test_lower_gpu_power_never_raises_it_nor_lowers_other_it(a, b, fraction, network_kw, nodes):
    lo, hi = sorted((a, b))
    snap = campus(racks=(rack(1, nodes), rack(2, 3)), other_it_fraction=fraction)
    at_lo = it_breakdown(snap, gpu_power_fraction=lo, network_kw=network_kw)
    at_hi = it_breakdown(snap, gpu_power_fraction=hi, network_kw=network_kw)
    assert at_lo.it_kw <= at_hi.it_kw + 1e-9
    assert at_lo.other_it_kw >= at_hi.other_it_kw - 1e-9
    # the IT falls by the GPUs' drop alone
    assert at_hi.it_kw - at_lo.it_kw == pytest.approx(at_hi.gpu_kw - at_lo.gpu_kw, abs=1e-9)
    h_lo, h_hi = heat_map(snap, gpu_power_fraction=lo), heat_map(snap, gpu_power_fraction=hi)
    assert h_lo.it_kw <= h_hi.it_kw + 1e-9
    assert h_lo.other_it_kw >= h_hi.other_it_kw - 1e-9
