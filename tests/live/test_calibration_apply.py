"""A calibration applied as a branch carries every fitted parameter, and the branch's model then draws what
was measured (docs/live.md, "Applying a calibration").

The truth is the emulator's hidden parameters (``campus.emulator``, never read by the twin): racks of two
makes whose GPUs draw 78 % of TDP and whose servers' overhead is 15 % above the catalog's, a UPS of
efficiency 0.95 and a plant of fixed 12 kW, eir_ref 0.22, eir_per_k 0.006, each meter with 1 % noise."""

import numpy as np
import pytest
from django.urls import reverse

from campus import calibration_branch as cb
from campus.emulator import Profile
from campus.models import Campus, CoolingPlant, PowerDevice
from tests import factories as f
from tests.live.test_calibration_facility import HIDDEN, by_metric, emulated_rows, profile, upload, url

F_TRUE, K_TRUE = 0.78, 1.15
# (servers of make A, of make B) per rack: A = 8 GPUs of 700 W + 4,600 W, B = 4 GPUs of 700 W + 3,000 W
RACKS = {"R1": (1, 0), "R2": (2, 0), "R3": (0, 1), "R4": (0, 3), "R5": (1, 2), "R6": (3, 1)}
GPU_KW = {"A": 8 * 0.7, "B": 4 * 0.7}
OVERHEAD_KW = {"A": 4.6, "B": 3.0}


def terms_kw(a: int, b: int) -> tuple[float, float]:
    """A rack's GPUs at TDP and its servers' overhead at the catalog's, kW (by hand)."""
    return a * GPU_KW["A"] + b * GPU_KW["B"], a * OVERHEAD_KW["A"] + b * OVERHEAD_KW["B"]


@pytest.fixture
def site():
    campus = f.CampusFactory(name="Calib", other_it_fraction=0.0, design_pue=None)
    feed = f.UtilityFeedFactory(campus=campus)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus), width_m=60.0, length_m=60.0)
    plant = f.CoolingPlantFactory(campus=campus, name="AC-1", kind="air-chiller", capacity_kw=400.0, cop=8.0)
    cdu = f.CoolingUnitFactory(
        campus=campus,
        hall=hall,
        plant=plant,
        name="CDU-1",
        capacity_kw=300.0,
        supply_temp_c=30.0,
        return_temp_c=45.0,
    )
    ups = f.PowerDeviceFactory(
        campus=campus, name="UPS-1", kind="ups", rated_kw=500.0, efficiency=0.99, utility_feed=feed
    )
    make = {
        "A": f.NodeModelFactory(gpus_per_node=8, overhead_w=4600.0),
        "B": f.NodeModelFactory(gpus_per_node=4, overhead_w=3000.0, rack_units=4),
    }
    for i, (name, (a, b)) in enumerate(RACKS.items()):
        rack = f.RackFactory(
            hall=hall, name=name, x_m=2.0 * i, y_m=1.0, design_kw=60.0, extra_it_kw=0.0, cooling_unit=cdu
        )
        for kind, count in (("A", a), ("B", b)):
            for _ in range(count):
                f.NodeFactory(rack=rack, node_model=make[kind])
        f.PowerFeedFactory(rack=rack, upstream=ups, rating_kw=100.0)
    return campus


def rack_rows() -> list[tuple]:
    objects = [
        {"kind": "rack", "name": n, "gpu_kw": terms_kw(a, b)[0], "other_kw": terms_kw(a, b)[1]}
        for n, (a, b) in RACKS.items()
    ]
    p = Profile(
        campus="Calib", objects=objects, gpu_fraction=F_TRUE, overhead_scale=K_TRUE, noise=0.01, seed=7
    )
    return [r for r in emulated_rows(p) if r[0] == "rack"]


def facility_rows() -> list[tuple]:
    """The UPS, the CDU, the plant and the weather of the facility calibration's emulator, no rack."""
    p = profile(1)
    p.objects = [o for o in p.objects if o["kind"] != "rack"]
    return emulated_rows(p)


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_analytics")
def test_the_applied_branch_draws_what_was_measured_and_the_parent_is_unchanged(site, planner_client):
    campus = site
    upload(planner_client, campus, rack_rows() + facility_rows())
    racks_fit = planner_client.get(url("calibration", campus)).json()
    assert racks_fit["fitted"] == ["gpu_power_fraction", "overhead_scale"]
    assert abs(racks_fit["gpu_power_fraction"] - F_TRUE) < 3 * racks_fit["gpu_power_fraction_se"]
    assert abs(racks_fit["overhead_scale"] - K_TRUE) < 3 * racks_fit["overhead_scale_se"]
    trunk = by_metric(planner_client.get(url("measured", campus)).json())

    r = planner_client.post(
        url("calibration-apply", campus), {"name": "Calib calibrated"}, content_type="application/json"
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["not_applied"] == []
    applied = {(a["object"], a["field"]): a for a in body["applied"]}
    f_fit = applied[("campus Calib calibrated", "gpu_power_fraction")]["to"]
    k_fit = applied[("campus Calib calibrated", "server_overhead_scale")]["to"]
    assert f_fit == pytest.approx(racks_fit["gpu_power_fraction"], abs=1e-6)
    assert k_fit == pytest.approx(racks_fit["overhead_scale"], abs=1e-6)
    for name in ("fixed_kw", "eir_ref", "eir_per_k"):
        a = applied[("air-chiller AC-1", name)]
        assert a["from"] is None and not a["clipped"], name
    assert not any(a["clipped"] for a in body["applied"])
    branch = Campus.objects.get(pk=body["id"])

    # the branch's model draws what was measured: every rack within the meters' noise (1 % a reading,
    # two or three readings a 5-minute bucket), the UPS and the plant within their regressions' residual
    rows = by_metric(planner_client.get(reverse("campus-measured", kwargs={"pk": branch.pk})).json())
    for name, (a, b) in RACKS.items():
        g, o = terms_kw(a, b)
        true_kw = F_TRUE * g + K_TRUE * o
        row, before = rows[("rack", name, "power_kw")], trunk[("rack", name, "power_kw")]
        assert row["modelled_kw"] == pytest.approx(f_fit * g + k_fit * o, rel=1e-4), name  # by hand
        assert row["rms_residual"] < 0.015 * true_kw, name
        # before: the design load (GPUs at TDP, the catalog's overhead) off by its hand-calculated error
        assert before["rms_residual"] == pytest.approx(abs(g + o - true_kw), abs=0.01 * true_kw), name
        assert before["rms_residual"] > 3 * row["rms_residual"], name
    plant = body["calibration"]["plants"][0]
    after = rows[("air-chiller", "AC-1", "power_kw")]["rms_residual"]
    assert after < 1.1 * plant["rms_residual_regression_kw"]
    assert after < trunk[("air-chiller", "AC-1", "power_kw")]["rms_residual"] / 3
    assert (
        rows[("ups", "UPS-1", "power_kw")]["rms_residual"]
        < trunk[("ups", "UPS-1", "power_kw")]["rms_residual"]
    )
    stored = CoolingPlant.objects.get(campus=branch, name="AC-1")
    for name in ("fixed_kw", "eir_ref", "eir_per_k"):
        assert abs(getattr(stored, name) - HIDDEN[name]) < 3 * plant[f"{name}_se"], name

    # the parent is unchanged
    campus.refresh_from_db()
    assert (campus.gpu_power_fraction, campus.server_overhead_scale) == (1.0, 1.0)
    parent_plant = CoolingPlant.objects.get(campus=campus, name="AC-1")
    assert (parent_plant.fixed_kw, parent_plant.eir_ref, parent_plant.eir_per_k, parent_plant.cop) == (
        None,
        None,
        None,
        8.0,
    )
    assert PowerDevice.objects.get(campus=campus, name="UPS-1").efficiency == 0.99

    # the diff names the changed parameters, and the summary's IT power moves to the racks' calibrated sum
    diff = planner_client.get(reverse("campus-diff", kwargs={"pk": branch.pk}), {"against": campus.pk}).json()
    changed = {(c["model"], c["name"]): c["fields"] for c in diff["objects"]["changed"]}
    assert changed[("coolingplant", "AC-1")]["fixed_kw"][0] is None
    assert set(changed[("coolingplant", "AC-1")]) >= {"cop", "fixed_kw", "eir_ref", "eir_per_k"}
    campus_fields = next(v for (model, _), v in changed.items() if model == "campus")
    assert campus_fields["gpu_power_fraction"] == [1.0, f_fit]
    assert campus_fields["server_overhead_scale"] == [1.0, k_fit]
    g_all = sum(terms_kw(a, b)[0] for a, b in RACKS.values())
    o_all = sum(terms_kw(a, b)[1] for a, b in RACKS.values())
    it_before, it_after, _ = diff["figures"]["power.it_mw"]
    assert it_before == pytest.approx((g_all + o_all) / 1000, rel=1e-3)
    assert it_after == pytest.approx((f_fit * g_all + k_fit * o_all) / 1000, rel=1e-3)


def test_a_fit_beyond_a_fields_bounds_is_clipped_and_said_so():
    fits = {
        "conversion": [{"kind": "ups", "name": "U", "efficiency": 1.03}],
        "plants": [
            {"kind": "chiller", "name": "C", "cop": 6.0, "fixed_kw": -2.0, "eir_ref": 0.2, "eir_per_k": 0.004}
        ],
    }
    racks = {"fitted": ["gpu_power_fraction"], "gpu_power_fraction": 0.8, "overhead_scale": 1.0}
    changes = {(c.name, c.field): c for c in cb.fitted_changes(fits, racks)}
    assert set(changes) == {
        ("", "gpu_power_fraction"),
        ("U", "efficiency"),
        ("C", "cop"),
        ("C", "fixed_kw"),
        ("C", "eir_ref"),
        ("C", "eir_per_k"),
    }
    assert changes[("U", "efficiency")].value == 1.0  # PowerDevice.efficiency's bound
    assert changes[("C", "fixed_kw")].value == 0.0
    assert changes[("C", "eir_ref")].value == 0.2
    assert cb.field_bounds(Campus, "gpu_power_fraction") == (0.05, 1.2)
    assert np.isinf(cb.field_bounds(Campus, "name")[1])
