"""Calibration recovers hidden parameters: racks drawn from the model with a known GPU power fraction and
overhead scale, plus 1 % noise, give back both within three standard errors (campus.analysis.calibration)."""

import numpy as np
import pytest

from campus.analysis.calibration import calibrate, rack_terms_kw
from campus.analysis.snapshot import CampusSnapshot, GpuSpec, NodeSpec, RackSnap

H100 = GpuSpec("h100", "H100", "nvidia", 700.0, 80.0, {}, True, 900.0, 87.0, 92.0)
NODES = {
    "hgx": NodeSpec("hgx", "HGX", "h100", 8, 2000.0, 8, "connectx7", 0.0, 400.0, 8),
    "pcie": NodeSpec("pcie", "PCIe", "h100", 4, 1800.0, 2, "connectx7", 0.0, 400.0, 4),
}


def campus(rng) -> CampusSnapshot:
    racks = tuple(
        RackSnap(
            id=i,
            name=f"R{i}",
            hall_id=1,
            building_id=1,
            x_m=0,
            y_m=0,
            cooling_type="air",
            design_kw=200,
            cooling_unit_id=None,
            pod_id=None,
            status="active",
            nodes=(("hgx", int(rng.integers(1, 5))), ("pcie", int(rng.integers(0, 5)))),
            extra_it_kw=float(rng.uniform(0, 3)),
        )
        for i in range(1, 41)
    )
    return CampusSnapshot(
        1, "c", 1e6, 0.1, None, 25.0, 0.0, gpus={"h100": H100}, node_models=NODES, racks=racks
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_calibration_recovers_the_hidden_fraction_and_overhead_within_three_standard_errors(seed):
    rng = np.random.default_rng(seed)
    snap = campus(rng)
    f_true, k_true = 0.82, 1.10
    measured = {
        rid: (f_true * g + k_true * b + e) * (1 + 0.01 * rng.standard_normal())
        for rid, (g, b, e) in rack_terms_kw(snap).items()
    }
    c = calibrate(snap, measured)
    assert c.fitted == ("gpu_power_fraction", "overhead_scale")
    assert abs(c.gpu_power_fraction - f_true) < 3 * c.gpu_power_fraction_se
    assert abs(c.overhead_scale - k_true) < 3 * c.overhead_scale_se
    assert c.gpu_power_fraction_se < 0.03  # two makes: the columns' ratio takes a few values only
    assert c.rms_residual_after_kw < c.rms_residual_before_kw / 5


def test_racks_of_one_make_fit_the_fraction_alone():
    rng = np.random.default_rng(5)
    snap = campus(rng)
    make = snap.racks[0]
    snap = CampusSnapshot(
        1,
        "c",
        1e6,
        0.1,
        None,
        25.0,
        0.0,
        gpus={"h100": H100},
        node_models=NODES,
        racks=tuple(RackSnap(**{**make.__dict__, "id": i, "name": f"S{i}"}) for i in range(1, 6)),
    )
    g, b, e = rack_terms_kw(snap)[1]
    c = calibrate(snap, {i: 0.7 * g + b + e for i in range(1, 6)})
    assert c.fitted == ("gpu_power_fraction",) and c.gpu_power_fraction == pytest.approx(0.7)
    with pytest.raises(ValueError, match="racks"):
        calibrate(snap, {1: 10.0})
