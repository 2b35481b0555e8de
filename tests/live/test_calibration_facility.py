"""Calibration of conversion losses and cooling plants, applied as a branch; measured against modelled beyond
power (docs/live.md).

The truth is the emulator's hidden parameters (``campus.emulator.readings``, never read by the twin) and hand
calculations: a CDU of 100 kW at 143.54 L/min warms its water by 100 × 60 / (143.54 × 4.18) = 10.0 K."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.urls import reverse

from campus.analysis import measurements as m
from campus.analysis.calibration_facility import fit_conversion, fit_plant
from campus.emulator import Profile, readings
from campus.models import Campus
from tests import factories as f
from tests.live.sites import cooled_rack, url

NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
HIDDEN = {"efficiency": 0.95, "fixed_kw": 12.0, "eir_ref": 0.22, "eir_per_k": 0.006}


def profile(seed: int = 1) -> Profile:
    return Profile(
        campus="Calib",
        objects=[
            {"kind": "rack", "name": "R1", "nominal_kw": 100.0},
            {"kind": "ups", "name": "UPS-1", "nominal_kw": 100.0, "efficiency": HIDDEN["efficiency"]},
            {"kind": "cdu", "name": "CDU-1", "heat_kw": 100.0, "supply_c": 30.0, "flow_lpm": 143.54},
            {
                "kind": "air-chiller",
                "name": "AC-1",
                "heat_kw": 100.0,
                "fixed_kw": HIDDEN["fixed_kw"],
                "eir_ref": HIDDEN["eir_ref"],
                "eir_per_k": HIDDEN["eir_per_k"],
            },
        ],
        noise=0.01,
        temp_noise_k=0.05,
        load_swing=0.4,
        weather={"mean_c": 20.0, "amplitude_c": 8.0},
        seed=seed,
    )


def emulated_rows(p: Profile, days: float = 2.0, step_s: int = 120) -> list[tuple]:
    rng = np.random.default_rng(p.seed)
    t_end = NOW.timestamp()
    t0 = t_end - days * 86400
    out = []
    for t in np.arange(t0, t_end, step_s):
        when = datetime.fromtimestamp(float(t), UTC)
        out += [(k, n, metric, when, v) for k, n, metric, v in readings(p, float(t), t0, rng)]
    return out


def bucketed(rows, kind, name, metric):
    samples = [m.Sample(k, n, mt, t, v) for k, n, mt, t, v in rows if (k, n, mt) == (kind, name, metric)]
    return {key[3]: b.mean for key, b in m.rollup(samples).items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_fits_recover_the_emulators_hidden_efficiency_and_plant_coefficients(seed):
    rows = emulated_rows(profile(seed))
    out, inp = bucketed(rows, "ups", "UPS-1", "power_out_kw"), bucketed(rows, "ups", "UPS-1", "power_kw")
    times = sorted(out)
    fit = fit_conversion(
        "ups", "UPS-1", np.array([out[t] for t in times]), np.array([inp[t] for t in times]), 0.99
    )
    assert abs(fit.efficiency - HIDDEN["efficiency"]) < 3 * fit.efficiency_se
    assert fit.efficiency_se < 0.002
    assert fit.rms_residual_after_kw < fit.rms_residual_before_kw

    heat, power = (
        bucketed(rows, "air-chiller", "AC-1", "heat_kw"),
        bucketed(rows, "air-chiller", "AC-1", "power_kw"),
    )
    outdoor = bucketed(rows, "campus", "Calib", "dry_bulb_c")
    times = sorted(heat)
    q = np.array([heat[t] for t in times])
    fit = fit_plant(
        "air-chiller",
        "AC-1",
        q,
        np.array([outdoor[t] for t in times]),
        np.array([power[t] for t in times]),
        5.0,
        lambda cop: q / cop,  # an independent model: all of the heat through a compressor of that COP
    )
    for name in ("fixed_kw", "eir_ref", "eir_per_k"):
        assert abs(getattr(fit, name) - HIDDEN[name]) < 3 * getattr(fit, f"{name}_se"), name
    assert fit.rms_residual_regression_kw < fit.rms_residual_after_kw <= fit.rms_residual_before_kw


def test_a_plant_whose_heat_load_never_varies_is_refused_with_the_reason():
    q = np.full(10, 100.0)
    t = np.full(10, 20.0)
    with pytest.raises(ValueError, match="must both vary"):
        fit_plant("chiller", "C", q, t, q * 0.2, 5.0, lambda cop: q / cop)


# ---------------------------------------------------------------- through the API


@pytest.fixture
def site():
    return cooled_rack("Calib", plant_cop=8.0, ups_efficiency=0.99)[0]


def upload(client, campus, rows):
    body = [
        {"object_kind": k, "object_name": n, "metric": mt, "time": t.isoformat(), "value": v}
        for k, n, mt, t, v in rows
    ]
    r = client.post(url("measurements", campus), {"rows": body}, content_type="application/json")
    assert r.status_code == 201, r.content
    return r


def by_metric(answer):
    return {(o["object_kind"], o["object_name"], o["metric"]): o for o in answer["objects"]}


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_analytics")
def test_measured_against_modelled_beyond_power_and_the_calibrated_branch_fits_better(site, planner_client):
    campus = site
    upload(planner_client, campus, emulated_rows(profile(1)))

    rows = by_metric(planner_client.get(url("measured", campus)).json())
    cdu_return = rows[("cdu", "CDU-1", "return_temp_c")]
    # hand calculation: the peak heat (100 kW) warms 143.54 L/min by 10.0 K: 40 °C against the modelled 45 °C
    assert cdu_return["unit"] == "°C" and cdu_return["deviation_unit"] == "K"
    assert cdu_return["deviation"] == pytest.approx(-5.0, abs=0.25)
    assert cdu_return["alarm"] == "under"
    supply = rows[("cdu", "CDU-1", "supply_temp_c")]
    assert abs(supply["deviation"]) < 0.25 and supply["alarm"] is None
    assert rows[("cdu", "CDU-1", "flow_lpm")]["measured_peak"] == pytest.approx(143.54, rel=0.03)
    for key in (
        ("campus", "Calib", "pue"),
        ("campus", "Calib", "dry_bulb_c"),
        ("ups", "UPS-1", "power_out_kw"),
    ):
        assert rows[key]["modelled"] is not None and rows[key]["deviation"] is not None, key
    assert rows[("campus", "Calib", "dry_bulb_c")]["basis"] == "paired"
    assert rows[("rack", "R1", "power_kw")]["modelled_kw"] == pytest.approx(
        100.0
    )  # the power rows' names stay

    fits = planner_client.get(url("calibration-facility", campus)).json()
    (ups,) = fits["conversion"]
    assert abs(ups["efficiency"] - HIDDEN["efficiency"]) < 3 * ups["efficiency_se"]
    (plant,) = fits["plants"]
    for name in ("fixed_kw", "eir_ref", "eir_per_k"):
        assert abs(plant[name] - HIDDEN[name]) < 3 * plant[f"{name}_se"], name
    assert plant["rms_residual_after_kw"] < plant["rms_residual_before_kw"]

    r = planner_client.post(
        url("calibration-apply", campus), {"name": "Calib calibrated"}, content_type="application/json"
    )
    assert r.status_code == 201, r.content
    applied = {(a["object"], a["field"]): a for a in r.json()["applied"]}
    assert applied[("ups UPS-1", "efficiency")]["to"] == pytest.approx(ups["efficiency"], abs=1e-6)
    for name in ("cop", "fixed_kw", "eir_ref", "eir_per_k"):
        assert applied[("air-chiller AC-1", name)]["to"] == pytest.approx(plant[name], abs=1e-6), name
    # R1 holds no GPU server: the rack fit has nothing to fit, and says so
    assert {n["parameter"] for n in r.json()["not_applied"]} == {
        "gpu_power_fraction",
        "server_overhead_scale",
    }
    branch_id = r.json()["id"]

    trunk = rows
    branch = planner_client.get(reverse("campus-measured", kwargs={"pk": branch_id})).json()
    assert branch["measurements_of"] == campus.pk
    branch_rows = by_metric(branch)
    for key in (("ups", "UPS-1", "power_kw"), ("air-chiller", "AC-1", "power_kw")):
        assert trunk[key]["basis"] == branch_rows[key]["basis"] == "paired", key
        assert branch_rows[key]["rms_residual"] < trunk[key]["rms_residual"], key

    r = planner_client.post(
        url("calibration-apply", campus), {"name": "Calib calibrated"}, content_type="application/json"
    )
    assert r.status_code == 400 and "name" in r.json()


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_analytics")
def test_a_metric_the_object_has_not_is_a_400_naming_the_field(site, planner_client):
    body = "object_kind,object_name,metric,time,value\nrack,R1,supply_temp_c,2026-11-29T03:00:00Z,30\n"
    r = planner_client.post(url("measurements", site), body, content_type="text/csv")
    assert r.status_code == 400 and r.json()["field"] == "metric" and r.json()["line"] == 2
    body = "object_kind,object_name,metric,time,value\ncdu,CDU-1,supply_temp_c,2026-11-29T03:00:00Z,300\n"
    r = planner_client.post(url("measurements", site), body, content_type="text/csv")
    assert r.status_code == 400 and r.json()["field"] == "value"


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_analytics")
def test_nothing_to_apply_is_a_400_and_writes_no_branch(site, planner_client, viewer_client):
    r = planner_client.post(
        url("calibration-apply", site), {"name": "X", "dayz": 3}, content_type="application/json"
    )
    assert r.status_code == 400 and "dayz" in r.json()
    assert (
        viewer_client.post(
            url("calibration-apply", site), {"name": "X"}, content_type="application/json"
        ).status_code
        == 403
    )
    r = planner_client.post(
        url("calibration-apply", site), {"name": "Nothing"}, content_type="application/json"
    )
    assert r.status_code == 400 and "measurements" in r.json()
    assert not Campus.objects.filter(name="Nothing").exists()


@pytest.mark.django_db
def test_the_prometheus_templates_cover_the_metrics_beyond_power(site, planner_client):
    templates = planner_client.get(url("prometheus", site)).json()["templates"]
    metrics = {(t["object_kind"], t["metric"]) for t in templates}
    for want in (
        ("cdu", "supply_temp_c"),
        ("cdu", "flow_lpm"),
        ("air-chiller", "power_w"),
        ("ups", "power_out_w"),
        ("campus", "pue"),
        ("campus", "dry_bulb_c"),
    ):
        assert want in metrics, want
    r = planner_client.put(url("prometheus", site), {"mapping": templates}, content_type="application/json")
    assert r.status_code == 200, r.content


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_analytics")
def test_a_pdu_without_an_output_meter_is_calibrated_from_the_racks_it_alone_feeds(planner_client):
    """A PDU of hidden efficiency 0.97 (0.99 in the inventory) feeding two racks of 50 and 30 kW, each on
    that PDU alone: its output is the racks' measured sum, and the fit gives 0.97 back within three standard
    errors. A third rack fed from it and from another PDU makes its output unknown: no fit."""
    campus = f.CampusFactory(name="Down", other_it_fraction=0.0, design_pue=None)
    feed = f.UtilityFeedFactory(campus=campus)
    hall = f.DataHallFactory(building=f.BuildingFactory(campus=campus))
    pdu = f.PowerDeviceFactory(
        campus=campus, name="PDU-1", rated_kw=500.0, efficiency=0.99, utility_feed=feed
    )
    for name, kw in (("R1", 50.0), ("R2", 30.0)):
        f.PowerFeedFactory(
            rack=f.RackFactory(hall=hall, name=name, extra_it_kw=kw, design_kw=60.0), upstream=pdu
        )
    p = Profile(
        campus="Down",
        objects=[
            {"kind": "rack", "name": "R1", "nominal_kw": 50.0},
            {"kind": "rack", "name": "R2", "nominal_kw": 30.0},
            {"kind": "pdu", "name": "PDU-1", "nominal_kw": 80.0, "efficiency": 0.97},
        ],
        load_swing=0.4,
    )
    rows = [r for r in emulated_rows(p, days=1.0) if r[2] != "power_out_kw"]  # no output meter
    upload(planner_client, campus, rows)
    (fit,) = planner_client.get(url("calibration-facility", campus)).json()["conversion"]
    assert fit["output_from"] == "downstream"
    assert abs(fit["efficiency"] - 0.97) < 3 * fit["efficiency_se"]

    other = f.PowerDeviceFactory(campus=campus, name="PDU-2", rated_kw=500.0, utility_feed=feed)
    r3 = f.RackFactory(hall=hall, name="R3", extra_it_kw=10.0, design_kw=60.0)
    f.PowerFeedFactory(rack=r3, upstream=pdu, side="A")
    f.PowerFeedFactory(rack=r3, upstream=other, side="B")
    assert planner_client.get(url("calibration-facility", campus)).json()["conversion"] == []
