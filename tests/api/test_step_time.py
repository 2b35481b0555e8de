"""POST /api/calculators/step-time/: a published run, a campus's pods, sweeps, and 400s naming the field."""

import pytest
from django.urls import reverse

from campus.models import GPUModel, NodeModel
from tests import factories as f

URL = "calculator-step-time"


def post(client, body):
    return client.post(reverse(URL), body, format="json")


@pytest.mark.django_db
class TestStepTime:
    def test_llama3_405b_preset_reproduces_the_published_mfu_band(self, viewer_client):
        r = post(viewer_client, {"preset": "llama3-405b-16k"})
        assert r.status_code == 200, r.data
        assert 0.36 <= r.data["mfu"] <= 0.45  # Llama 3 paper table 4: 41 %
        assert r.data["gpus"] == 16384
        assert set(r.data["breakdown_s"]) >= {"compute", "bubble", "tp", "dp", "io"}
        assert r.data["collectives"]["tp"]["tier"] == "scale-up"
        # 405e9 x 14 bytes at Tectonic's 2 TB/s
        assert r.data["checkpoint"]["checkpoint_write_s"] == pytest.approx(405e9 * 14 / 2e12)
        assert r.data["days"] > 0

    def test_a_campus_pod_is_the_pool_and_dp_fills_the_rest(self, viewer_client):
        campus = f.CampusFactory()
        pod = f.PodFactory(campus=campus, oversubscription=1.0)
        node_model = NodeModel.objects.get(slug="dgx-h100")
        for _ in range(4):
            rack = f.RackFactory(hall__building__campus=campus, pod=pod)
            for _ in range(2):
                f.NodeFactory(rack=rack, node_model=node_model)
        body = {
            "model_preset": "llama3-8b",
            "campus": campus.id,
            "pods": [pod.id],
            "global_batch": 64,
            "parallel": {"tp": 8},
        }
        r = post(viewer_client, body)
        assert r.status_code == 200, r.data
        assert r.data["gpus"] == 64
        assert r.data["workload"]["parallel"]["dp"] == 8
        assert r.data["pace_gpu"] == "h100-sxm"

    def test_scaling_and_sweep(self, viewer_client):
        body = {
            "preset": "megatron-146b",
            "scaling": {"gpu_counts": [512, 1024, 1536]},
            "sweep": [{"tp": 8, "pp": 8, "dp": 24}, {"tp": 8, "pp": 4, "dp": 48}, {"tp": 3, "dp": 512}],
        }
        r = post(viewer_client, body)
        assert r.status_code == 200, r.data
        assert [p["gpus"] for p in r.data["scaling"]] == [512, 1024, 1536]
        assert r.data["scaling"][0]["linearity"] == 1.0
        assert "error" in r.data["sweep"][2]

    def test_a_model_that_does_not_fit_is_400_naming_parallel(self, viewer_client):
        r = post(viewer_client, {"preset": "megatron-1t", "parallel": {"pp": 1, "dp": 384}})
        assert r.status_code == 400
        assert "parallel" in r.data

    def test_tp_that_does_not_divide_the_heads_is_400_naming_parallel_tp(self, viewer_client):
        r = post(viewer_client, {"preset": "bloom-176b", "parallel": {"tp": 3}, "gpus": 288})
        assert r.status_code == 400
        assert "parallel.tp" in r.data

    def test_unknown_fields_are_400_naming_them(self, viewer_client):
        r = post(viewer_client, {"preset": "bloom-176b", "parallel": {"tq": 2}})
        assert r.status_code == 400
        assert "parallel.tq" in r.data
        r = post(viewer_client, {"preset": "bloom-176b", "sweep": [{"pq": 2}]})
        assert r.status_code == 400
        assert "sweep[0].pq" in r.data

    def test_no_model_is_400(self, viewer_client):
        r = post(viewer_client, {"gpu_model": "h100-sxm", "gpus": 8, "global_batch": 8})
        assert r.status_code == 400
        assert "model" in r.data

    def test_precision_the_gpu_lacks_is_400(self, viewer_client):
        assert GPUModel.objects.filter(slug="a100-sxm").exists()
        r = post(viewer_client, {"preset": "bloom-176b", "precision": "fp8"})
        assert r.status_code == 400
        assert "precision" in r.data

    def test_pods_without_campus_is_400(self, viewer_client):
        r = post(viewer_client, {"preset": "bloom-176b", "pods": [1]})
        assert r.status_code == 400
        assert "pods" in r.data

    def test_anonymous_is_401(self, anon_client):
        assert post(anon_client, {"preset": "bloom-176b"}).status_code == 401


MOE = {
    "name": "moe",
    "parameters": 47e9,
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 8,
    "seq_len": 4096,
    "experts": 8,
    "top_k": 2,
    "active_parameters": 13e9,
    "expert_parameters": 45e9,
}


@pytest.mark.django_db
class TestStepTimeRefusesWhatCannotRun:
    """A model no transformer can be, a fabric the catalog does not know: 400s naming the field, never a
    figure (an expert share above the parameters gave a negative dense part and a smaller memory)."""

    def body(self, **model):
        return {
            "model": {**MOE, **model},
            "global_batch": 512,
            "gpu_model": "h100-sxm",
            "gpus": 512,
            "parallel": {"tp": 8, "ep": 8},
        }

    def test_the_moe_model_as_given_runs(self, viewer_client):
        assert post(viewer_client, self.body()).status_code == 200

    @pytest.mark.parametrize(
        "change, field",
        [
            ({"top_k": 16}, "model.top_k"),  # 16 of 8 experts
            ({"expert_parameters": 50e9}, "model.expert_parameters"),  # more than the 47e9 parameters
            ({"kv_heads": 5}, "model.kv_heads"),  # 32 query heads do not share 5 key/value heads
            ({"kv_heads": 64}, "model.kv_heads"),  # more key/value heads than heads
        ],
    )
    def test_a_model_that_cannot_be_is_400_naming_its_field(self, viewer_client, change, field):
        r = post(viewer_client, self.body(**change))
        assert r.status_code == 400, r.data
        assert list(r.data) == [field]

    def test_an_unknown_fabric_is_400_naming_it(self, viewer_client):
        r = post(viewer_client, {"preset": "bloom-176b", "pool": {"fabric": "carrier-pigeon"}})
        assert r.status_code == 400
        assert list(r.data) == ["pool.fabric"]
        r = post(viewer_client, {"preset": "bloom-176b", "pool": {"fabric": "spectrum-x"}})
        assert r.status_code == 200, r.data

    def test_a_scale_up_domain_of_part_of_a_server_is_400_naming_it(self, viewer_client):
        # 3 GPUs of an 8-GPU server cannot be its NVLink domain: TP8 was priced over the fabric instead
        for pool in ({"domain_gpus": 3}, {"domain_gpus": 8, "gpus_per_node": 16}):
            r = post(viewer_client, {"preset": "bloom-176b", "pool": pool})
            assert r.status_code == 400, r.data
            assert list(r.data) == ["pool.domain_gpus"]
        r = post(viewer_client, {"preset": "bloom-176b", "pool": {"domain_gpus": 72, "gpus_per_node": 4}})
        assert r.status_code == 200, r.data  # an NVL72 rack of 18 four-GPU trays


@pytest.mark.django_db
def test_a_sweep_point_without_dp_fills_the_gpus_as_the_job_itself_does(viewer_client):
    """Megatron-LM 146B on 1,536 A100 (TP8 PP8 DP24): a point naming only TP x PP, or only the GPUs, answers
    what the same split given as the job answers (DP = GPUs / (TP x PP)), not a refusal keeping DP 24."""
    r = post(viewer_client, {"preset": "megatron-146b", "sweep": [{"tp": 8, "pp": 4}, {"gpus": 768}]})
    assert r.status_code == 200, r.data
    by_split, by_gpus = r.data["sweep"]
    assert "error" not in by_split and "error" not in by_gpus, r.data["sweep"]
    assert by_split["dp"] == 1536 // (8 * 4) and by_gpus["dp"] == 768 // (8 * 8)
    job = post(viewer_client, {"preset": "megatron-146b", "parallel": {"tp": 8, "pp": 4}})
    assert by_split["step_s"] == pytest.approx(job.data["step_s"])
    job = post(viewer_client, {"preset": "megatron-146b", "gpus": 768})
    assert by_gpus["step_s"] == pytest.approx(job.data["step_s"])
