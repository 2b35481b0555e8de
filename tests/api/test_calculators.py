"""POST /api/calculators/<name>/: results follow the published formulas; bad input is a 400 naming the field."""

import math

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import factories as f


def post(client, name, body):
    return client.post(reverse(f"calculator-{name}"), body, format="json")


@pytest.mark.django_db
class TestCheckpointInterval:
    def test_young_interval_is_sqrt_of_twice_cost_times_mtbf(self, viewer_client):
        response = post(viewer_client, "checkpoint-interval", {"mtbf_hours": 3.0, "checkpoint_minutes": 5})
        assert response.status_code == 200, response.data
        assert response.data["young_minutes"] == pytest.approx(math.sqrt(2 * (5 / 60) * 3.0) * 60)
        assert 0 < response.data["expected_ettr"] <= 1

    def test_a_checkpoint_longer_than_twice_the_mtbf_takes_daly_s_tau_equals_m(self, viewer_client):
        # Daly (2006): τ_opt = M for δ ≥ 2M; M = 2 min, δ = 5 min, R = 10 min
        body = {"mtbf_hours": 2 / 60, "checkpoint_minutes": 5, "restart_minutes": 10}
        data = post(viewer_client, "checkpoint-interval", body).json()
        assert data["regime"] == "interval-equals-mttf"
        assert data["daly_minutes"] == pytest.approx(2.0)
        assert 0 <= data["expected_ettr"] <= 1
        assert 0.99 < data["lost_fraction"] <= 1

    def test_negative_mtbf_is_400_naming_mtbf_hours(self, viewer_client):
        response = post(viewer_client, "checkpoint-interval", {"mtbf_hours": -1, "checkpoint_minutes": 5})
        assert response.status_code == 400
        assert "mtbf_hours" in response.data

    def test_anonymous_is_401(self, anon_client):
        assert post(anon_client, "checkpoint-interval", {}).status_code == 401


@pytest.mark.django_db
class TestJobMttf:
    def test_mttf_falls_as_one_over_nodes_times_rate(self, viewer_client):
        small = post(viewer_client, "job-mttf", {"nodes": 1000, "failures_per_1000_node_days": 6.5}).data
        large = post(viewer_client, "job-mttf", {"nodes": 2000, "failures_per_1000_node_days": 6.5}).data
        assert small["hours"] == pytest.approx(24 * 1000 / (1000 * 6.5))
        assert large["hours"] == pytest.approx(small["hours"] / 2)

    def test_neither_nodes_nor_gpus_is_400_naming_nodes(self, viewer_client):
        response = post(viewer_client, "job-mttf", {"failures_per_1000_node_days": 6.5})
        assert response.status_code == 400
        assert "nodes" in response.data

    def test_rates_bad_item_is_400_naming_its_path(self, viewer_client):
        response = post(viewer_client, "job-mttf", {"nodes": 10, "rates": [{"per": "rack", "mtbf_hours": 5}]})
        assert response.status_code == 400
        assert list(response.data) == ["rates[0].per"]

    def test_unknown_key_inside_a_rate_is_400_naming_its_path(self, viewer_client):
        rates = [{"mtbf_hours": 5}, {"mtbf_hours": 5, "interrupts": False}]
        response = post(viewer_client, "job-mttf", {"nodes": 10, "rates": rates})
        assert response.status_code == 400
        assert response.json() == {"rates[1].interrupts": ["Unknown field."]}

    def test_rates_that_are_not_a_list_are_400_naming_rates(self, viewer_client):
        response = post(viewer_client, "job-mttf", {"nodes": 10, "rates": "many"})
        assert response.status_code == 400 and list(response.data) == ["rates"]


@pytest.mark.django_db
class TestFirstFailure:
    def test_first_failure_is_inverse_of_summed_rates(self, viewer_client):
        body = {"components": [{"count": 1000, "mtbf_hours": 50_000}, {"count": 500, "mtbf_hours": 10_000}]}
        response = post(viewer_client, "first-failure", body)
        assert response.status_code == 200, response.data
        rate_per_hour = 1000 / 50_000 + 500 / 10_000
        assert response.data["minutes"] == pytest.approx(60 / rate_per_hour)

    def test_unknown_key_inside_a_component_is_400_naming_its_path(self, viewer_client):
        body = {"components": [{"count": 10, "mtbf_hours": 100, "mtbf_hour": 5}, "gpu"]}
        response = post(viewer_client, "first-failure", body)
        assert response.status_code == 400
        assert set(response.json()) == {"components[0].mtbf_hour", "components[1]"}

    def test_empty_components_is_400_naming_components(self, viewer_client):
        response = post(viewer_client, "first-failure", {"components": []})
        assert response.status_code == 400
        assert "components" in response.data

    def test_all_zero_counts_is_400_not_an_infinite_answer(self, viewer_client):
        response = post(viewer_client, "first-failure", {"components": [{"count": 0, "mtbf_hours": 10}]})
        assert response.status_code == 400


@pytest.mark.django_db
class TestTrainingTime:
    def test_days_scale_inversely_with_gpus(self, viewer_client):
        gpu = f.GPUModelFactory(peak_bf16_tflops=1000.0)
        one = post(viewer_client, "training-time", {"flops": 1e24, "gpus": 1000, "gpu_model": gpu.slug}).data
        two = post(viewer_client, "training-time", {"flops": 1e24, "gpus": 2000, "gpu_model": gpu.slug}).data
        expected_days = 1e24 / (1000 * 1000e12 * 0.4) / 86400
        assert one["days"] == pytest.approx(expected_days)
        assert two["days"] == pytest.approx(expected_days / 2)

    def test_unknown_gpu_model_is_400_naming_gpu_model(self, viewer_client):
        response = post(viewer_client, "training-time", {"flops": 1e24, "gpus": 8, "gpu_model": "nope"})
        assert response.status_code == 400
        assert "gpu_model" in response.data

    def test_fp8_on_a_gpu_without_fp8_is_400_naming_precision(self, viewer_client):
        gpu = f.GPUModelFactory(fp8_support=False, peak_fp8_tflops=None)
        body = {"flops": 1e24, "gpus": 8, "gpu_model": gpu.slug, "precision": "fp8"}
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 400
        assert "precision" in response.data

    def test_whole_campus_counts_its_gpus(self, viewer_client):
        node = f.NodeFactory()
        body = {"flops": 1e24, "campus": node.rack.campus_id}
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 200, response.data
        assert response.data["gpus"] == node.node_model.gpus_per_node


@pytest.mark.django_db
# The client fixture holds no per-example state: each example is one independent POST.
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=st.dictionaries(
        st.sampled_from(["mtbf_hours", "checkpoint_minutes", "restart_minutes", "other"]),
        st.one_of(
            st.none(), st.floats(allow_nan=False, allow_infinity=False), st.integers(), st.text(max_size=5)
        ),
    )
)
def test_checkpoint_interval_never_fails_on_any_body(viewer_client, body):
    response = post(viewer_client, "checkpoint-interval", body)
    assert response.status_code in (200, 400)
    if response.status_code == 400:
        # An unknown field ("other") is named too, never silently ignored.
        assert set(response.data) <= {
            "mtbf_hours",
            "checkpoint_minutes",
            "restart_minutes",
            "other",
            "non_field_errors",
        }
    if "other" in body:
        assert response.status_code == 400 and "other" in response.data


@pytest.mark.django_db
class TestTrainingTimeMixedFleet:
    def test_synchronous_by_default_and_both_times_shown(self, viewer_client):
        fast = f.GPUModelFactory(peak_bf16_tflops=1000.0)
        slow = f.GPUModelFactory(peak_bf16_tflops=250.0)
        body = {"flops": 1e24, "gpus_by_model": {fast.slug: 1000, slow.slug: 1000}}
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 200, response.data
        # synchronous: 2,000 x 250 TFLOPS x 0.4; by speed: (1,000 x 1,000 + 1,000 x 250) TFLOPS x 0.4
        assert response.data["days"] == pytest.approx(1e24 / (2000 * 250e12 * 0.4) / 86400)
        assert response.data["days_by_speed"] == pytest.approx(1e24 / (1_250_000e12 * 0.4) / 86400)
        assert response.data["pace_gpu_model"] == slow.slug
        response = post(viewer_client, "training-time", {**body, "partition": "by_speed"})
        assert response.data["days"] == pytest.approx(1e24 / (1_250_000e12 * 0.4) / 86400)

    @pytest.mark.parametrize("counts", [{"zero": 0}, {"zero": 0, "other": 0}, {}])
    def test_no_gpus_is_400_naming_gpus_by_model(self, viewer_client, counts):
        # a fleet of zero GPUs has no speed at any precision: say so, not that bf16 is unsupported
        slugs = {key: f.GPUModelFactory().slug for key in counts}
        body = {"flops": 1e24, "gpus_by_model": {slugs[key]: n for key, n in counts.items()}}
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 400
        assert list(response.data) == ["gpus_by_model"]
        assert "no GPUs given" in str(response.data["gpus_by_model"])

    def test_unknown_partition_is_400_naming_partition(self, viewer_client):
        gpu = f.GPUModelFactory()
        body = {"flops": 1e24, "gpus": 8, "gpu_model": gpu.slug, "partition": "evenly"}
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 400
        assert "partition" in response.data


@pytest.mark.django_db
class TestRecoveryOptions:
    """Checked against a hand calculation: M = 3 h, δ = 5 min, R = 10 min, 10 s steps, 16,384 GPUs.

    Daly (FGCS 2006, eq. 37): τ = √(2δM)[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ = √0.5 × 1.040827 − 0.083333
    = 0.652643 h = 39.1585 min. ETTR = τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)) = 0.74016.
    In-memory reconstruction (Gemini, arXiv 2312.11805 §3): 80 GB × 8 / 400 Gb/s = 1.6 s; a failure
    costs one step, the copy and the restart: (10 + 1.6)/3600 + 1/6 = 0.169889 h; ETTR = 3 / 3.169889
    = 0.94641. GPU-hours lost per failure: 16,384 × ((τ+δ)/2 + R) = 8,759.8 and 16,384 × 0.169889
    = 2,783.5."""

    BODY = {
        "mtbf_hours": 3.0,
        "checkpoint_minutes": 5,
        "restart_minutes": 10,
        "step_seconds": 10,
        "gpus": 16384,
    }

    def test_matches_the_hand_calculation(self, viewer_client):
        response = post(viewer_client, "recovery-options", self.BODY)
        assert response.status_code == 200, response.content
        data = response.json()
        assert data["effective_restart_minutes"] == pytest.approx(10.0)
        ckpt, mem = data["checkpoint_restart"], data["in_memory"]
        assert ckpt["interval_minutes"] == pytest.approx(39.1585, abs=1e-3)
        assert ckpt["expected_ettr"] == pytest.approx(0.74016, abs=1e-4)
        # Daly's exponential model: a committed segment of τ + δ = 44.1585 min takes
        # M e^{R/M} (e^{(τ+δ)/M} − 1) = 180 x e^{1/18} x (e^{0.245325} − 1) = 52.9085 min of wall time;
        # the rest, 1 − 44.1585/52.9085 = 0.165335, is lost: per failure 16,384 x 3 h x 0.165335, per
        # day 16,384 x 24 x 0.165335 (the first-order (τ+δ)/2 + R gave 8,759.8 per failure)
        assert ckpt["lost_gpu_hours_per_failure"] == pytest.approx(8126.5, abs=0.1)
        assert ckpt["lost_gpu_hours_per_day"] == pytest.approx(65012.3, abs=0.1)
        assert ckpt["regime"] == "daly"
        assert mem["reconstruction_seconds"] == pytest.approx(1.6)
        assert mem["expected_ettr"] == pytest.approx(0.94641, abs=1e-4)
        assert mem["lost_gpu_hours_per_failure"] == pytest.approx(2783.5, abs=0.1)
        assert mem["lost_gpu_hours_per_day"] == pytest.approx(16384 * 24 * (1 - 0.946405), abs=0.5)

    def test_a_million_gpus_cannot_lose_more_than_every_gpu_hour(self, viewer_client):
        # 1,000,000 H100 at the Llama 3 rate: M = 3.04 min, less than a 5-min checkpoint + 10-min restart
        body = {**self.BODY, "mtbf_hours": 1296 * 16384 / (419 * 1_000_000), "gpus": 1_000_000}
        data = post(viewer_client, "recovery-options", body).json()
        for option in ("checkpoint_restart", "in_memory"):
            assert 0 <= data[option]["lost_gpu_hours_per_day"] <= 24_000_000
            assert 0 <= data[option]["expected_ettr"] <= 1
        assert data["checkpoint_restart"]["lost_gpu_hours_per_day"] > 23_500_000
        failures_per_day = 24 / body["mtbf_hours"]
        assert data["checkpoint_restart"]["lost_gpu_hours_per_failure"] * failures_per_day <= 24_000_000

    def test_spares_running_out_add_the_repair_wait(self, viewer_client):
        # 0.1 node failures/h × 48 h repair = 4.8 nodes in repair on average; with 2 spares the job waits
        # when more than 2 are out: P = 1 − e^−4.8 (1 + 4.8 + 4.8²/2) = 0.857461 → 10 + 0.857461 × 2,880 min.
        body = {**self.BODY, "spares": 2, "node_failures_per_hour": 0.1}
        data = post(viewer_client, "recovery-options", body).json()
        assert data["effective_restart_minutes"] == pytest.approx(2479.49, abs=0.01)

    @pytest.mark.parametrize(
        ("field", "value"), [("mtbf_hours", -1), ("gpus", 0), ("link_gbps", 0), ("spares", -1)]
    )
    def test_bad_input_is_400_naming_the_field(self, viewer_client, field, value):
        response = post(viewer_client, "recovery-options", {**self.BODY, field: value})
        assert response.status_code == 400 and field in response.json()

    def test_missing_and_unknown_fields_are_400_naming_them(self, viewer_client):
        body = {k: v for k, v in self.BODY.items() if k != "step_seconds"}
        assert "step_seconds" in post(viewer_client, "recovery-options", body).json()
        response = post(viewer_client, "recovery-options", {**self.BODY, "link_gbit": 800})
        assert response.status_code == 400 and response.json() == {"link_gbit": ["Unknown field."]}

    def test_listed_in_the_openapi_schema(self, viewer_client):
        schema = viewer_client.get("/api/schema/", {"format": "json"}).json()
        assert "/api/calculators/recovery-options/" in schema["paths"]


@pytest.mark.django_db
class TestTrainingTimeOnACampusDay:
    """The campus of tests/simulations/campus_builder.py: racks R0-R3 of 4 HGX H100 servers (8 GPUs each).
    R2 retires on 2025-01-01, R3 enters service on 2099-01-01 and one server of R0 retires on 2025-01-01, so
    by hand: 2024-06-01 -> R0-R2, 12 servers, 96 GPUs; today -> 3 + 4 servers, 56 GPUs; 2099-06-01 -> 3 + 4 +
    4 servers, 88 GPUs. Days = flops / (GPUs x 989 TFLOPS dense BF16 x MFU x ETTR) / 86,400 s."""

    @pytest.fixture
    def campus(self):
        from datetime import date

        from campus import state as states
        from campus.models import Node, Rack
        from tests.simulations.campus_builder import build_small_campus

        states.forget()
        campus = build_small_campus()
        racks = list(Rack.objects.filter(campus=campus).order_by("name"))
        Rack.objects.filter(pk=racks[2].pk).update(retire_date=date(2025, 1, 1))
        Rack.objects.filter(pk=racks[3].pk).update(in_service_date=date(2099, 1, 1))
        first = Node.objects.filter(rack=racks[0]).order_by("name").first()
        Node.objects.filter(pk=first.pk).update(retire_date=date(2025, 1, 1))
        yield campus
        states.forget()

    @pytest.mark.parametrize(("as_of", "gpus"), [(None, 56), ("2024-06-01", 96), ("2099-06-01", 88)])
    def test_counts_the_gpus_in_service_on_the_day(self, viewer_client, campus, as_of, gpus):
        from django.utils import timezone

        body = {"flops": 1e24, "campus": campus.pk, "mfu": 0.5, "ettr": 0.8}
        if as_of is not None:
            body["as_of"] = as_of
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 200, response.data
        assert response.data["gpus"] == gpus
        assert response.data["as_of"] == (as_of or timezone.localdate().isoformat())
        assert response.data["days"] == pytest.approx(1e24 / (gpus * 989e12 * 0.5 * 0.8) / 86_400)

    def test_without_ettr_the_campus_headline_ettr_is_taken(self, viewer_client, campus):
        # the calculator's MFU is typed (0.4 by default): the summary with the same typed MFU
        summary = viewer_client.get(reverse("campus-summary", kwargs={"pk": campus.pk}), {"mfu": 0.4}).json()
        ettr = summary["compute"]["ettr"]
        assert ettr == summary["reliability"]["headline"]["ettr"]
        assert ettr is not None and 0 < ettr < 1
        response = post(viewer_client, "training-time", {"flops": 1e24, "campus": campus.pk})
        assert response.status_code == 200, response.data
        assert response.data["ettr_source"] == "campus"
        assert response.data["ettr"] == pytest.approx(ettr)
        # today 56 H100: 56 x 989 TFLOPS x 0.4 (default MFU) x the campus ETTR, the summary's effective figure
        # (its design figure: the sketch has no power chain, so none of its racks runs at design)
        assert response.data["effective_pflops"] == pytest.approx(56 * 989 / 1000 * 0.4 * ettr)
        assert response.data["effective_pflops"] == pytest.approx(
            summary["compute"]["design_effective_pflops"]["bf16"]
        )
        assert response.data["days"] == pytest.approx(1e24 / (56 * 989e12 * 0.4 * ettr) / 86_400)
        given = post(viewer_client, "training-time", {"flops": 1e24, "campus": campus.pk, "ettr": 0.8}).data
        assert (given["ettr"], given["ettr_source"]) == (0.8, "given")

    def test_without_a_campus_the_ettr_is_one(self, viewer_client):
        body = {"flops": 1e24, "gpus": 8, "gpu_model": "h100-sxm"}
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 200, response.data
        assert (response.data["ettr"], response.data["ettr_source"]) == (1.0, "default")
        assert response.data["effective_pflops"] == pytest.approx(8 * 989 / 1000 * 0.4)

    def test_a_null_ettr_is_400_naming_ettr(self, viewer_client, campus):
        response = post(viewer_client, "training-time", {"flops": 1e24, "campus": campus.pk, "ettr": None})
        assert response.status_code == 400
        assert "ettr" in response.data

    def test_the_summary_of_the_day_counts_the_same_gpus(self, viewer_client, campus):
        summary = viewer_client.get(reverse("campus-summary", kwargs={"pk": campus.pk})).json()
        assert summary["inventory"]["gpus"] == 56

    @pytest.mark.parametrize("value", ["2027-02-30", "tomorrow"])
    def test_a_bad_day_is_400_naming_as_of(self, viewer_client, campus, value):
        response = post(viewer_client, "training-time", {"flops": 1e24, "campus": campus.pk, "as_of": value})
        assert response.status_code == 400
        assert "as_of" in response.data

    def test_as_of_without_a_campus_is_400_naming_as_of(self, viewer_client):
        body = {"flops": 1e24, "gpus": 8, "gpu_model": "h100-sxm", "as_of": "2026-01-01"}
        response = post(viewer_client, "training-time", body)
        assert response.status_code == 400
        assert "as_of" in response.data

    def test_a_day_before_anything_is_in_service_is_400_naming_campus(self, viewer_client, campus):
        from datetime import date

        from campus.models import Rack

        Rack.objects.filter(campus=campus).update(in_service_date=date(2099, 1, 1))
        response = post(
            viewer_client, "training-time", {"flops": 1e24, "campus": campus.pk, "as_of": "2030-01-01"}
        )
        assert response.status_code == 400
        assert "campus" in response.data
