from campus.models import FailureRate, GPUModel, LinkMedium, NodeModel, SwitchModel
from tests import factories as f
from tests.api.base import APIViewTests

CATALOG_BRIEF = ("id", "url", "slug", "name")


class TestGPUModels(APIViewTests):
    model = GPUModel
    basename = "gpumodel"
    factory = f.GPUModelFactory
    brief_fields = CATALOG_BRIEF
    has_history = False
    update_data = {"tdp_w": 1000.0, "cap_curve": [[0.6, 0.8], [1.0, 1.0]]}
    bulk_update_data = {"estimate": True}
    bad_data = {"cap_curve": [[1.0, 1.0], [0.5, 0.7]]}
    filter_params = {"slug": "slug", "fp8_support": "fp8_support"}

    def create_data(self):
        base = {k: v for k, v in f.GPUModelFactory.build().__dict__.items() if not k.startswith("_")}
        fields = (
            "vendor",
            "tdp_w",
            "memory_gb",
            "peak_bf16_tflops",
            "peak_fp16_tflops",
            "peak_fp8_tflops",
            "fp8_support",
            "slowdown_temp_c",
            "shutdown_temp_c",
            "cap_curve",
        )
        return [
            {
                "slug": f"gpu-x{i}",
                "name": f"GPU X{i}",
                "source": "vendor sheet",
                **{k: base[k] for k in fields},
            }
            for i in range(3)
        ]


class TestNodeModels(APIViewTests):
    model = NodeModel
    basename = "nodemodel"
    factory = f.NodeModelFactory
    brief_fields = CATALOG_BRIEF
    has_history = False
    update_data = {"overhead_w": 5000.0, "nic_kind": "bluefield3"}
    bulk_update_data = {"nics": 4}
    bad_data = {"gpus_per_node": 0}
    filter_params = {"gpu_model": "gpu_model_id", "nic_kind": "nic_kind"}

    def create_data(self):
        gpu = f.GPUModelFactory()
        return [
            {
                "slug": f"node-x{i}",
                "name": f"Node X{i}",
                "source": "vendor sheet",
                "gpu_model": gpu.pk,
                "gpus_per_node": 8,
                "overhead_w": 4600.0,
            }
            for i in range(3)
        ]


class TestSwitchModels(APIViewTests):
    model = SwitchModel
    basename = "switchmodel"
    factory = f.SwitchModelFactory
    brief_fields = CATALOG_BRIEF
    has_history = False
    update_data = {"radix": 128, "fabric": "tomahawk5"}
    bulk_update_data = {"power_w_optics": 1600.0}
    bad_data = {"radix": 2}
    filter_params = {"fabric": "fabric"}

    def create_data(self):
        return [
            {
                "slug": f"sw-x{i}",
                "name": f"Switch X{i}",
                "source": "vendor sheet",
                "vendor": "Broadcom",
                "fabric": "tomahawk5",
                "radix": 128,
                "port_speed_gbps": 400.0,
                "power_w_copper": 900.0,
                "power_w_optics": 1800.0,
            }
            for i in range(3)
        ]


class TestLinkMedia(APIViewTests):
    model = LinkMedium
    basename = "linkmedium"
    factory = f.LinkMediumFactory
    brief_fields = CATALOG_BRIEF
    has_history = False
    update_data = {"max_reach_m": 100.0}
    bulk_update_data = {"relative_cost": 2.5}
    bad_data = {"mtbf_hours": 0}
    filter_params = {"kind": "kind", "is_optical": "is_optical"}

    def create_data(self):
        return [
            {
                "slug": f"m-x{i}",
                "name": f"Medium X{i}",
                "source": "vendor sheet",
                "kind": "copper",
                "max_reach_m": 3.0,
                "power_w_per_end": 0.0,
                "relative_cost": 0.2,
                "mtbf_hours": 200_000.0,
            }
            for i in range(3)
        ]


class TestFailureRates(APIViewTests):
    model = FailureRate
    basename = "failurerate"
    factory = f.FailureRateFactory
    brief_fields = ("id", "url", "dataset", "component")
    has_history = False
    update_data = {"mtbf_hours": 50_000.0}
    bulk_update_data = {"repair_hours": 4.0}
    bad_data = {"per": "fortnight"}
    filter_params = {"dataset": "dataset", "component": "component", "per": "per"}

    def create_data(self):
        return [
            {
                "dataset": "test-set",
                "component": f"c{i}",
                "per": "node",
                "mtbf_hours": 1000.0 * (i + 1),
                "source": "paper",
            }
            for i in range(3)
        ]
