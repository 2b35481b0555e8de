"""GET /api/campuses/{id}/facility-year/ and the summary's PUE from the plant model, on a generated campus."""

import math

import pytest
from django.urls import reverse

from campus.interchange.generate import generate_spec
from campus.interchange.importer import import_campus

SERIES = ("dry_bulb_c", "wet_bulb_c", "it_mw", "facility_mw", "pue", "water_l", "cooling_margin_mw")


pytestmark = pytest.mark.usefixtures("fresh_analytics")


@pytest.fixture
def campus(db):
    return import_campus(generate_spec("Facility", gpus=512, cooling="liquid"))


def url(name: str, pk: int) -> str:
    return reverse(f"campus-{name}", args=[pk])


def test_the_year_has_every_hour_of_every_series_and_agrees_with_the_summary(viewer_client, campus):
    body = viewer_client.get(url("facility-year", campus.pk)).json()
    for name in SERIES:
        assert len(body[name]) == 8760, name
    assert body["pue_source"] == "plant-model"
    assert all(fac >= it for fac, it in zip(body["facility_mw"], body["it_mw"], strict=True))
    power = viewer_client.get(url("summary", campus.pk)).json()["power"]
    assert power["pue_source"] == "plant-model"
    # the summary's PUE, energy and peak are the integral and the maximum of these hours
    energy_mwh = sum(body["facility_mw"])
    assert power["pue"] == pytest.approx(energy_mwh / sum(body["it_mw"]), rel=1e-3)
    assert power["annual_energy_twh"] == pytest.approx(energy_mwh / 1e6, rel=1e-3)
    assert power["annual_cost_usd"] == pytest.approx(energy_mwh * 1000 * power["price_usd_per_kwh"], rel=1e-3)
    assert power["peak_facility_mw"] == pytest.approx(max(body["facility_mw"]), abs=1e-3)
    assert body["annual"]["pue"] == pytest.approx(power["pue"])


def test_a_typed_pue_is_an_override_for_every_consumer(planner_client, viewer_client, campus):
    r = planner_client.patch(url("detail", campus.pk), {"design_pue": 1.4}, format="json")
    assert r.status_code == 200, r.content
    summary = viewer_client.get(url("summary", campus.pk)).json()
    power = summary["power"]
    assert (power["pue"], power["pue_source"]) == (1.4, "override")
    assert power["facility_mw"] == pytest.approx(power["it_mw"] * 1.4)
    assert power["peak_facility_mw"] == pytest.approx(power["facility_mw"])
    for card in summary["buildings"]:
        assert card["facility_mw"] == pytest.approx(card["it_mw"] * 1.4)
    # the year the summary integrates is IT x 1.4 every hour (it ran the plant model under "override");
    # a climate asked for is the plant model's
    year = viewer_client.get(url("facility-year", campus.pk)).json()
    assert year["pue_source"] == "override"
    assert set(year["pue"]) == {1.4}
    assert year["facility_mw"] == [pytest.approx(it * 1.4, abs=1e-4) for it in year["it_mw"]]
    assert power["annual_energy_twh"] == pytest.approx(sum(year["facility_mw"]) / 1e6, rel=1e-4)
    assert power["peak_facility_mw"] == pytest.approx(max(year["facility_mw"]), abs=1e-3)
    annual = year["annual"]  # the overhead split as the plant model splits it: the parts add up
    assert annual["annual_it_energy_mwh"] + annual["annual_losses_mwh"] + annual["annual_cooling_mwh"] == (
        pytest.approx(annual["annual_energy_mwh"], rel=1e-9)
    )
    dublin = viewer_client.get(url("facility-year", campus.pk), {"climate": "dublin-ie"}).json()
    assert dublin["pue_source"] == "plant-model" and len(set(dublin["pue"])) > 1
    r = planner_client.patch(url("detail", campus.pk), {"design_pue": None}, format="json")
    assert r.status_code == 200, r.content
    assert viewer_client.get(url("summary", campus.pk)).json()["power"]["pue_source"] == "plant-model"


def test_a_hotter_climate_gives_a_higher_pue_and_bad_parameters_are_named(viewer_client, campus):
    dublin = viewer_client.get(url("facility-year", campus.pk), {"climate": "dublin-ie"}).json()
    singapore = viewer_client.get(url("facility-year", campus.pk), {"climate": "singapore-sg"}).json()
    assert (dublin["climate"], singapore["climate"]) == ("dublin-ie", "singapore-sg")
    assert singapore["annual"]["pue"] > dublin["annual"]["pue"]
    for params, field in (
        ({"climate": "mars"}, "climate"),
        ({"gpu_power_fraction": 2}, "gpu_power_fraction"),
    ):
        r = viewer_client.get(url("facility-year", campus.pk), params)
        assert r.status_code == 400 and field in r.json(), r.content
    assert viewer_client.get(url("facility-year", campus.pk), {"nope": 1}).status_code == 400


def test_the_design_pue_rejects_values_below_one(planner_client, campus):
    r = planner_client.patch(url("detail", campus.pk), {"design_pue": 0.9}, format="json")
    assert r.status_code == 400 and "design_pue" in r.json()


def test_half_gpu_power_lowers_only_the_gpus_in_the_summary_and_the_year(viewer_client, campus):
    full = viewer_client.get(url("summary", campus.pk)).json()["power"]
    half = viewer_client.get(url("summary", campus.pk) + "?gpu_power_fraction=0.5").json()["power"]
    year = viewer_client.get(url("facility-year", campus.pk) + "?gpu_power_fraction=0.5").json()
    # by hand: 512 H100 x 700 W = 0.3584 MW at TDP, 0.1792 MW at half; the rest of the servers, the network
    # and the other IT (storage, CPU nodes: worked out at full GPU power) keep their full-load figures, so
    # the IT falls by 0.1792 MW exactly
    assert full["gpu_mw"] == pytest.approx(0.3584)
    assert half["gpu_mw"] == pytest.approx(0.1792)
    for key in ("server_overhead_mw", "network_mw", "rack_extra_mw", "other_it_mw"):
        assert half[key] == pytest.approx(full[key]), key
    assert half["it_mw"] == pytest.approx(full["it_mw"] - 0.1792)
    # the plant's year at that load sees the same IT every hour (its series are given to 0.1 kW)
    assert max(year["it_mw"]) == pytest.approx(half["it_mw"], abs=1e-4)
    assert min(year["it_mw"]) == pytest.approx(half["it_mw"], abs=1e-4)


def test_effective_compute_is_peak_times_mfu_times_the_declared_jobs_ettr(viewer_client, campus):
    body = viewer_client.get(url("summary", campus.pk)).json()
    compute, head = body["compute"], body["reliability"]["headline"]
    jobs = head["jobs"]
    assert head["basis"].startswith("one synchronous job per island")
    # the jobs' ETTRs weighted by their GPUs, each Daly's exact one at the Daly interval for its own rate
    ettr = sum(j["gpus"] * j["expected_ettr"] for j in jobs) / sum(j["gpus"] for j in jobs)
    assert 0 < ettr < 1 and head["ettr"] == pytest.approx(ettr)
    for j in jobs:
        m, d, r = j["job_mttf_hours"], j["checkpoint_minutes"] / 60, j["restart_minutes"] / 60
        tau = j["optimal_checkpoint_minutes"] / 60
        assert j["expected_ettr"] == pytest.approx(
            tau / (m * math.exp(r / m) * (math.exp((tau + d) / m) - 1))
        )
    # smaller jobs fail less often than the campus-wide one, labelled as such
    assert ettr >= body["reliability"]["expected_ettr"]
    # 512 H100 x 989 TFLOPS = 506.368 PFLOPS dense BF16; each job's peak x its step-time MFU x its ETTR
    assert compute["peak_pflops"]["bf16"] == pytest.approx(506.368)
    assert compute["mfu_source"] == "step-time model"
    for p, tflops in (("bf16", 0.989), ("fp8", 1.979)):
        want = sum(j["gpus"] * tflops * j["training"]["island_mfu"][p] * j["expected_ettr"] for j in jobs)
        assert compute["effective_pflops"][p] == pytest.approx(want)
    # a typed MFU overrides the model: 0.40 for every job and precision
    typed = viewer_client.get(url("summary", campus.pk), {"mfu": 0.4}).json()["compute"]
    assert typed["effective_pflops"]["bf16"] == pytest.approx(506.368 * 0.4 * ettr)
    assert typed["effective_pflops"]["fp8"] == pytest.approx(512 * 1.979 * 0.4 * ettr)
    assert (compute["ettr"], compute["ettr_source"]) == (pytest.approx(ettr), "reliability.headline")
