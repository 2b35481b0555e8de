"""Catalog defaults of the twin: GPUs, server models, NICs, switches, link media, failure rates and
facility/training constants, each with its unit, source and an ``estimate`` flag.

Pure Python, no Django: the data migration seeds the catalog tables from these lists and tests
and notebooks use them directly. Dict keys are the model field names. Units are in the names.
``docs/catalog.md`` lists every figure with its source and the assumptions behind it.

Conventions
- ``source`` is a short citation (document, date, title). ``estimate`` is True where any figure of
  the row is not a published value (vendor sheets missing, fitted curves, reliability estimates).
- Peak TFLOPS are *dense* (no 2:4 sparsity), per GPU.
- Every ``cap_curve`` is an estimate fitted to a handful of published points (see ``CAP_CURVE_SOURCE``);
  the row's ``estimate`` flag covers the other figures, the curve is always an estimate.
"""

from __future__ import annotations

from typing import Any

Row = dict[str, Any]

# ---------------------------------------------------------------- GPUs

CAP_CURVE_SOURCE = (
    "cap curve: estimate fitted to NVIDIA Blackwell power profiles (2025, ~15% energy saved at >97% perf), "
    "Meta GB200 cluster 960 W of 1,200 W with perf/W optimum near 1,000 W (arXiv 2605.24461), "
    "Zeus (NSDI 2023) and Perseus (SOSP 2024): 15-30% energy saved with little throughput loss"
)

# Throughput (fraction of throughput at TDP) against power cap (fraction of TDP). Each curve starts
# at the part's minimum settable cap so that interpolation never extrapolates below it.
#
# Hopper: 0.8 of TDP keeps 96% of throughput (17% energy saved) and 0.7 keeps 91% (23% saved), the
# 15-30% band of Zeus/Perseus. Below ~0.5 clocks fall faster than power because static power stays.
_HOPPER_CURVE = [
    [0.29, 0.40],
    [0.4, 0.58],
    [0.5, 0.72],
    [0.6, 0.83],
    [0.7, 0.91],
    [0.8, 0.96],
    [0.9, 0.99],
    [1.0, 1.0],
]
# Ampere: the same shape down to the A100's 100 W (0.25) minimum limit.
_AMPERE_CURVE = [
    [0.25, 0.36],
    [0.4, 0.6],
    [0.5, 0.73],
    [0.6, 0.84],
    [0.7, 0.92],
    [0.8, 0.97],
    [0.9, 0.99],
    [1.0, 1.0],
]
# Blackwell: 0.83 of TDP (1,000 W of 1,200 W) keeps 97.2% -> 14.6% energy saved (NVIDIA power
# profiles) and is the perf/W optimum (Meta); below it throughput falls faster than power, so
# 0.8 (Meta's 960 W provisioning) keeps 93%.
_BLACKWELL_CURVE = [
    [0.5, 0.56],
    [0.6, 0.69],
    [0.7, 0.81],
    [0.8, 0.93],
    [0.83, 0.972],
    [0.9, 0.99],
    [1.0, 1.0],
]
# Parts without published capping data: the Hopper shape from a 0.5 minimum cap.
_GENERIC_CURVE = [
    [0.5, 0.72],
    [0.6, 0.83],
    [0.7, 0.91],
    [0.8, 0.96],
    [0.9, 0.99],
    [1.0, 1.0],
]

# H100 thresholds as reported by nvidia-smi -q: "GPU Max Operating Temp" 87 °C (clocks start to drop;
# hardware slowdown follows at 89 °C), shutdown 92 °C, "Memory Max Operating Temp" 95 °C.
_H100_THERMAL = {"slowdown_temp_c": 87.0, "shutdown_temp_c": 92.0, "hbm_max_temp_c": 95.0}

GPU_MODELS: list[Row] = [
    {
        "slug": "h100-sxm",
        "name": "NVIDIA H100 SXM5 80GB",
        "vendor": "NVIDIA",
        "tdp_w": 700.0,
        "memory_gb": 80.0,
        "memory_bandwidth_tbps": 3.35,
        "peak_fp8_tflops": 1979.0,
        "peak_bf16_tflops": 989.0,
        "peak_fp16_tflops": 989.0,
        "peak_tf32_tflops": 494.7,
        "fp8_support": True,
        "scaleup_gbps": 900.0,  # NVLink 4, 18 links, bidirectional
        **_H100_THERMAL,
        "cap_curve": _HOPPER_CURVE,
        "min_cap_fraction": 0.29,  # nvidia-smi minimum power limit 200 W of 700 W
        "source": "NVIDIA H100 Tensor Core GPU datasheet (2023); thermal limits from nvidia-smi -q; "
        + CAP_CURVE_SOURCE,
        "estimate": False,
    },
    {
        "slug": "h200",
        "name": "NVIDIA H200 SXM 141GB",
        "vendor": "NVIDIA",
        "tdp_w": 700.0,
        "memory_gb": 141.0,
        "memory_bandwidth_tbps": 4.8,
        "peak_fp8_tflops": 1979.0,
        "peak_bf16_tflops": 989.0,
        "peak_fp16_tflops": 989.0,
        "peak_tf32_tflops": 494.7,
        "fp8_support": True,
        "scaleup_gbps": 900.0,
        **_H100_THERMAL,  # assumed equal to H100 (same GH100 die)
        "cap_curve": _HOPPER_CURVE,
        "min_cap_fraction": 0.29,
        "source": "NVIDIA H200 Tensor Core GPU datasheet (2024); thermal limits assumed equal to H100; "
        + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "b200",
        "name": "NVIDIA B200 (HGX B200)",
        "vendor": "NVIDIA",
        "tdp_w": 1000.0,
        "memory_gb": 180.0,  # 1,440 GB per 8-GPU HGX B200
        "memory_bandwidth_tbps": 8.0,
        "peak_fp4_tflops": 9000.0,  # 72 PF dense FP4 per HGX B200 / 8
        "peak_fp8_tflops": 4500.0,
        "peak_bf16_tflops": 2250.0,
        "peak_fp16_tflops": 2250.0,
        "peak_tf32_tflops": 1125.0,
        "fp8_support": True,
        "scaleup_gbps": 1800.0,  # NVLink 5
        **_H100_THERMAL,
        "cap_curve": _BLACKWELL_CURVE,
        "min_cap_fraction": 0.5,
        "source": "NVIDIA HGX B200 / DGX B200 datasheets (2024), sparse figures halved; thermal limits and "
        "minimum cap assumed; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "gb200",
        "name": "NVIDIA GB200 (Blackwell GPU in NVL72)",
        "vendor": "NVIDIA",
        "tdp_w": 1200.0,
        "memory_gb": 186.0,  # 13.4 TB HBM3e per 72 GPUs
        "memory_bandwidth_tbps": 8.0,
        "peak_fp4_tflops": 10000.0,  # 1,440 PF sparse FP4 per NVL72 / 72 / 2
        "peak_fp8_tflops": 5000.0,  # 720 PF sparse per NVL72 / 72 / 2
        "peak_bf16_tflops": 2500.0,
        "peak_fp16_tflops": 2500.0,
        "peak_tf32_tflops": 1250.0,
        "fp8_support": True,
        "scaleup_gbps": 1800.0,
        **_H100_THERMAL,
        "cap_curve": _BLACKWELL_CURVE,
        "min_cap_fraction": 0.5,
        "source": "NVIDIA GB200 NVL72 datasheet (2024), rack figures per GPU, sparse halved; 1,200 W per "
        "GPU per Meta GB200 cluster (arXiv 2605.24461); thermal limits assumed; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "a100-sxm",
        "name": "NVIDIA A100 SXM4 80GB",
        "vendor": "NVIDIA",
        "tdp_w": 400.0,
        "memory_gb": 80.0,
        "memory_bandwidth_tbps": 2.039,
        "peak_fp8_tflops": None,
        "peak_bf16_tflops": 312.0,
        "peak_fp16_tflops": 312.0,
        "peak_tf32_tflops": 156.0,
        "fp8_support": False,
        "scaleup_gbps": 600.0,  # NVLink 3
        "slowdown_temp_c": 85.0,  # nvidia-smi "GPU Max Operating Temp"
        "shutdown_temp_c": 92.0,
        "hbm_max_temp_c": 95.0,
        "cap_curve": _AMPERE_CURVE,
        "min_cap_fraction": 0.25,  # nvidia-smi minimum power limit 100 W of 400 W
        "source": "NVIDIA A100 Tensor Core GPU datasheet (2021); thermal limits from nvidia-smi -q; "
        + CAP_CURVE_SOURCE,
        "estimate": False,
    },
    {
        "slug": "mi300x",
        "name": "AMD Instinct MI300X",
        "vendor": "AMD",
        "tdp_w": 750.0,
        "memory_gb": 192.0,
        "memory_bandwidth_tbps": 5.3,
        "peak_fp8_tflops": 2614.9,
        "peak_bf16_tflops": 1307.4,
        "peak_fp16_tflops": 1307.4,
        "peak_tf32_tflops": 653.7,
        "fp8_support": True,
        "scaleup_gbps": 896.0,  # 7 Infinity Fabric peer links x 128 GB/s
        **_H100_THERMAL,  # AMD publishes no throttle thresholds; H100 values assumed
        "cap_curve": _GENERIC_CURVE,
        "min_cap_fraction": 0.5,
        "source": "AMD Instinct MI300X datasheet (2023); thermal limits and minimum cap assumed; "
        + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "mi325x",
        "name": "AMD Instinct MI325X",
        "vendor": "AMD",
        "tdp_w": 1000.0,
        "memory_gb": 256.0,
        "memory_bandwidth_tbps": 6.0,
        "peak_fp8_tflops": 2614.9,
        "peak_bf16_tflops": 1307.4,
        "peak_fp16_tflops": 1307.4,
        "peak_tf32_tflops": 653.7,
        "fp8_support": True,
        "scaleup_gbps": 896.0,
        **_H100_THERMAL,
        "cap_curve": _GENERIC_CURVE,
        "min_cap_fraction": 0.5,
        "source": "AMD Instinct MI325X datasheet (2024); thermal limits and minimum cap assumed; "
        + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "h20",
        "name": "NVIDIA H20",
        "vendor": "NVIDIA",
        "tdp_w": 400.0,
        "memory_gb": 96.0,
        "memory_bandwidth_tbps": 4.0,
        "peak_fp8_tflops": 296.0,
        "peak_bf16_tflops": 148.0,
        "peak_fp16_tflops": 148.0,
        "peak_tf32_tflops": 74.0,
        "fp8_support": True,
        "scaleup_gbps": 900.0,
        **_H100_THERMAL,
        "cap_curve": _GENERIC_CURVE,
        "min_cap_fraction": 0.5,
        "source": "NVIDIA H20 specification as reported by the trade press (2023-11), no public datasheet; "
        "thermal limits assumed; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "ascend-910b",
        "name": "Huawei Ascend 910B",
        "vendor": "Huawei",
        "tdp_w": 400.0,
        "memory_gb": 64.0,
        "memory_bandwidth_tbps": 1.6,
        "peak_fp8_tflops": None,
        "peak_bf16_tflops": 320.0,
        "peak_fp16_tflops": 320.0,
        "peak_tf32_tflops": 160.0,  # no TF32; HF32 path assumed at half the FP16 rate
        "fp8_support": False,
        "scaleup_gbps": 392.0,  # HCCS, 7 x 56 GB/s
        **_H100_THERMAL,  # no published thresholds
        "cap_curve": _GENERIC_CURVE,
        "min_cap_fraction": 0.5,
        "source": "Huawei Atlas 800T A2 / Ascend 910B figures as reported publicly (2023), no vendor "
        "datasheet in English; thermal limits assumed; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "cambricon-mlu370",
        "name": "Cambricon MLU370-X8",
        "vendor": "Cambricon",
        "tdp_w": 250.0,
        "memory_gb": 48.0,  # LPDDR5, not HBM
        "memory_bandwidth_tbps": 0.6144,
        "peak_fp8_tflops": None,
        "peak_bf16_tflops": 96.0,
        "peak_fp16_tflops": 96.0,
        "peak_tf32_tflops": 24.0,  # no TF32; the FP32 rate
        "fp8_support": False,
        "scaleup_gbps": 200.0,  # MLU-Link
        **_H100_THERMAL,
        "cap_curve": _GENERIC_CURVE,
        "min_cap_fraction": 0.5,
        "source": "Cambricon MLU370-X8 product page (2022); thermal limits assumed; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    # ------------------------------------------------ 2025-2028 (docs/catalog.md, "2025-2028 systems")
    # A "GPU" is one package, what a scheduler assigns and what carries the HBM. NVIDIA counts Rubin GPUs by
    # reticle die from Vera Rubin on (NVL144 = 72 packages of 2 dies; NVL576 = 144 packages of 4 dies).
    {
        "slug": "gb300",
        "name": "NVIDIA GB300 (Blackwell Ultra GPU in NVL72)",
        "vendor": "NVIDIA",
        "tdp_w": 1400.0,
        "memory_gb": 288.0,  # HBM3e, 20.7 TB per 72 GPUs
        "memory_bandwidth_tbps": 8.0,
        "peak_fp4_tflops": 15000.0,  # 1,080 PF dense FP4 per NVL72 / 72
        "peak_fp8_tflops": 5000.0,  # 720 PF sparse FP8 per NVL72 / 72 / 2
        "peak_bf16_tflops": 2500.0,
        "peak_fp16_tflops": 2500.0,
        "peak_tf32_tflops": 1250.0,
        "fp8_support": True,
        "scaleup_gbps": 1800.0,  # NVLink 5; scale-up domain 72 GPUs
        **_H100_THERMAL,
        "cap_curve": _BLACKWELL_CURVE,
        "min_cap_fraction": 0.5,
        "source": "NVIDIA GB300 NVL72 product page and datasheet (2025): 72 Blackwell Ultra GPUs, 1,080 PF "
        "dense FP4, 720 PF FP8 and 360 PF BF16 with sparsity (halved), 20 TB HBM3e; up to 1,400 W per GPU "
        "(NVIDIA Technical Blog, 'Inside NVIDIA Blackwell Ultra', 2025-08); thermal limits assumed; "
        + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "b300",
        "name": "NVIDIA B300 (HGX B300)",
        "vendor": "NVIDIA",
        "tdp_w": 1100.0,
        "memory_gb": 288.0,  # 2.3 TB per 8-GPU HGX B300
        "memory_bandwidth_tbps": 8.0,
        "peak_fp4_tflops": 13500.0,  # 108 PF dense FP4 per HGX B300 / 8
        "peak_fp8_tflops": 4500.0,  # 72 PF sparse FP8 per HGX B300 / 8 / 2
        "peak_bf16_tflops": 2250.0,
        "peak_fp16_tflops": 2250.0,
        "peak_tf32_tflops": 1125.0,
        "fp8_support": True,
        "scaleup_gbps": 1800.0,  # NVLink 5; scale-up domain 8 GPUs
        **_H100_THERMAL,
        "cap_curve": _BLACKWELL_CURVE,
        "min_cap_fraction": 0.5,
        "source": "NVIDIA HGX B300 datasheet (2025): 8 GPUs, 108 PF dense FP4, 72 PF FP8 and 36 PF BF16 with "
        "sparsity (halved), 2.3 TB HBM3e; ~1,100 W per GPU as reported by server vendors (estimate); "
        "thermal limits assumed; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "vr200",
        "name": "NVIDIA Rubin (VR200, package of 2 dies in Vera Rubin NVL144)",
        "vendor": "NVIDIA",
        "tdp_w": 1800.0,
        "memory_gb": 288.0,  # HBM4
        "memory_bandwidth_tbps": 13.0,
        "peak_fp4_tflops": 50000.0,  # 3.6 EF FP4 inference per NVL144 rack / 72 packages
        "peak_fp8_tflops": 16700.0,  # 1.2 EF FP8 training per rack / 72
        "peak_bf16_tflops": 8350.0,  # not published: half the FP8 rate (estimate)
        "peak_fp16_tflops": 8350.0,
        "peak_tf32_tflops": None,
        "fp8_support": True,
        "scaleup_gbps": 3600.0,  # NVLink 6; scale-up domain 72 packages (144 dies)
        **_H100_THERMAL,
        "cap_curve": _BLACKWELL_CURVE,
        "min_cap_fraction": 0.5,
        "source": "NVIDIA GTC 2025 keynote and Vera Rubin NVL144 announcement (2025-03): 3.6 EF FP4 "
        "inference, 1.2 EF FP8 training per rack of 72 Rubin packages, HBM4 288 GB at ~13 TB/s, NVLink 6 "
        "3.6 TB/s; ~1.8 kW per package as reported (SemiAnalysis, 2025); BF16 not published (half FP8, "
        "estimate); thermal limits and cap curve assumed from Blackwell; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "rubin-ultra",
        "name": "NVIDIA Rubin Ultra (package of 4 dies in Rubin Ultra NVL576, Kyber rack)",
        "vendor": "NVIDIA",
        "tdp_w": 3600.0,
        "memory_gb": 1024.0,  # HBM4e, 365 TB per 144 packages (~2.5 TB fast memory incl. LPDDR)
        "memory_bandwidth_tbps": 32.0,
        "peak_fp4_tflops": 100000.0,  # 15 EF FP4 inference per NVL576 / 144 packages
        "peak_fp8_tflops": 34700.0,  # 5 EF FP8 training per NVL576 / 144
        "peak_bf16_tflops": 17350.0,  # not published: half the FP8 rate (estimate)
        "peak_fp16_tflops": 17350.0,
        "peak_tf32_tflops": None,
        "fp8_support": True,
        "scaleup_gbps": 7200.0,  # NVLink 7 (as announced); scale-up domain 144 packages (576 dies)
        **_H100_THERMAL,
        "cap_curve": _BLACKWELL_CURVE,
        "min_cap_fraction": 0.5,
        "source": "NVIDIA GTC 2025 keynote (2025-03): Rubin Ultra NVL576 (2027), 15 EF FP4 inference and "
        "5 EF FP8 training per rack of 144 packages, HBM4e 1 TB per package, ~600 kW Kyber rack; ~3.6 kW "
        "per package as reported (SemiAnalysis, 2025); BF16 not published (half FP8); roadmap figures, all "
        "estimates; " + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "mi355x",
        "name": "AMD Instinct MI355X",
        "vendor": "AMD",
        "tdp_w": 1400.0,
        "memory_gb": 288.0,
        "memory_bandwidth_tbps": 8.0,
        "peak_fp4_tflops": 10066.3,  # MXFP4 dense
        "peak_fp8_tflops": 5033.2,
        "peak_bf16_tflops": 2516.6,
        "peak_fp16_tflops": 2516.6,
        "peak_tf32_tflops": None,  # CDNA 4 has no TF32 matrix rate
        "fp8_support": True,
        "scaleup_gbps": 1075.0,  # 7 Infinity Fabric links x 153.6 GB/s; scale-up domain 8 GPUs
        **_H100_THERMAL,
        "cap_curve": _GENERIC_CURVE,
        "min_cap_fraction": 0.5,
        "source": "AMD Instinct MI355X datasheet (2025-06): 1,400 W (liquid-cooled), 288 GB HBM3E at 8 TB/s, "
        "2.5 PF FP16/BF16, 5.0 PF FP8 and 10.1 PF MXFP4 dense; thermal limits and minimum cap assumed; "
        + CAP_CURVE_SOURCE,
        "estimate": True,
    },
    {
        "slug": "ascend-910c",
        "name": "Huawei Ascend 910C",
        "vendor": "Huawei",
        "tdp_w": 850.0,
        "memory_gb": 128.0,  # HBM2E, two 910B-class dies of 64 GB
        "memory_bandwidth_tbps": 3.2,
        "peak_fp4_tflops": None,
        "peak_fp8_tflops": None,
        "peak_bf16_tflops": 781.0,  # 300 PF BF16 dense per CloudMatrix 384 / 384
        "peak_fp16_tflops": 781.0,
        "peak_tf32_tflops": None,
        "fp8_support": False,
        "scaleup_gbps": 392.0,  # Unified Bus; scale-up domain 384 NPUs (CloudMatrix 384)
        **_H100_THERMAL,  # no published thresholds
        "cap_curve": _GENERIC_CURVE,
        "min_cap_fraction": 0.5,
        "source": "SemiAnalysis, 'Huawei AI CloudMatrix 384' (2025-04): 300 PF BF16 dense per 384 Ascend 910C, "
        "128 GB HBM per package at 3.2 TB/s; CloudMatrix 384 paper (Huawei, arXiv 2506.12708, 2025): "
        "Unified Bus scale-up; 850 W per package estimated (two 910B-class dies); thermal limits assumed; "
        + CAP_CURVE_SOURCE,
        "estimate": True,
    },
]

for _row in GPU_MODELS:
    _row.setdefault("peak_fp4_tflops", None)  # no FP4 tensor rate before Blackwell / CDNA 4

# ---------------------------------------------------------------- NICs

NIC_KINDS: dict[str, Row] = {
    # ConnectX-7 is the reference: its power is inside the server overhead. "connectx7" also stands for
    # any plain NIC (ConnectX-6, integrated RoCE ports) whose power is part of the server overhead.
    "connectx7": {
        "extra_w_per_nic": 0.0,
        "transceivers_per_nic": 1.0,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): reference NIC of the 575 W/GPU overhead",
        "estimate": False,
    },
    "bluefield3": {
        "extra_w_per_nic": 50.0,
        "transceivers_per_nic": 1.0,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): BlueField-3 ~50 W more per NIC than ConnectX-7",
        "estimate": False,
    },
    # Twin-port 2x400G OSFP (Cedar-7 style): two NIC ports share one node-side transceiver.
    "dual-port": {
        "extra_w_per_nic": 0.0,
        "transceivers_per_nic": 0.5,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): twin-port 2x400G modules halve node-side optics",
        "estimate": False,
    },
    # The Ascend 910B carries its own 200GE RoCE port: no separate NIC card, its power is in the server's.
    "roce-200ge": {
        "extra_w_per_nic": 0.0,
        "transceivers_per_nic": 1.0,
        "source": "Huawei Atlas 800T A2 training server (2023): one 200GE RoCE v2 port integrated on each of "
        "the 8 Ascend 910B NPUs, for the parameter-plane network",
        "estimate": False,
    },
    # ConnectX-8 SuperNIC: 800 Gb/s per GPU (GB300, B300, Vera Rubin trays); its power is counted in the
    # tray or server overhead the catalog takes from the system's published power, as ConnectX-7's is.
    "connectx8": {
        "extra_w_per_nic": 0.0,
        "transceivers_per_nic": 1.0,
        "source": "NVIDIA ConnectX-8 SuperNIC product brief (2025): 800 Gb/s InfiniBand XDR or Ethernet, PCIe "
        "Gen6; power inside the system's overhead (estimate)",
        "estimate": True,
    },
}

# Back-end fabrics a GPU vendor's servers are built and supported with (one fabric per campus in the
# generator, so every model of a mix must take it). RoCE runs on the Ethernet fabrics.
VENDOR_FABRICS: dict[str, tuple[tuple[str, ...], str]] = {
    "NVIDIA": (
        (
            "infiniband-ndr",
            "spectrum-x",
            "tomahawk5",
            "roce-200ge",
            "infiniband-xdr",
            "spectrum-x800",
            "tomahawk6",
        ),
        "NVIDIA DGX/HGX reference architectures (2023-2025): InfiniBand NDR/XDR or Spectrum-X Ethernet; "
        "ConnectX-7/8 also run RoCE on any Ethernet fabric",
    ),
    "AMD": (
        ("infiniband-ndr", "tomahawk5", "roce-200ge", "tomahawk6"),
        "MI300X platforms ship with InfiniBand (Azure ND MI300X v5: 8 x 400G NDR, 2024) or RoCE Ethernet "
        "(OCI BM.GPU.MI300X.8: RoCE v2, 2024); Spectrum-X is NVIDIA's end-to-end platform with its SuperNICs",
    ),
    "Huawei": (
        ("roce-200ge",),
        "Huawei Atlas 800T A2 (2023): the 910B NPUs' integrated 200GE RoCE ports are the only scale-out path",
    ),
    "Cambricon": (
        ("tomahawk5", "roce-200ge"),
        "estimate: MLU370-X8 servers scale out over RoCE Ethernet (Cambricon MLU370-X8 product brief, 2022)",
    ),
}


def fabrics_for_vendor(vendor: str) -> tuple[str, ...]:
    """The back-end fabrics offered with a vendor's GPUs (an unknown vendor: every fabric)."""
    if vendor in VENDOR_FABRICS:
        return VENDOR_FABRICS[vendor][0]
    return tuple(dict.fromkeys(r["fabric"] for r in SWITCH_MODELS))


# ---------------------------------------------------------------- servers

# 575 W per GPU beyond the GPUs in an 8xH100 server: 8 x 700 W + 4,600 W = 10.2 kW, the DGX H100
# maximum system power (6 x 3.3 kW PSUs, 4+2).
_H100_OVERHEAD_W = 575.0 * 8

NODE_MODELS: list[Row] = [
    {
        "slug": "hgx-h100-8",
        "name": "HGX H100 8-GPU server",
        "gpu": "h100-sxm",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,
        "nics": 8,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): 575 W/GPU overhead; NVIDIA DGX H100 "
        "user guide (2023): 10.2 kW max",
        "estimate": False,
    },
    {
        "slug": "dgx-h100",
        "name": "NVIDIA DGX H100",
        "gpu": "h100-sxm",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,
        "nics": 8,
        "nic_kind": "dual-port",  # 8 ConnectX-7 behind 4 twin-port OSFP cages (Cedar-7 modules)
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "NVIDIA DGX H100 user guide (2023): 10.2 kW max, 8x ConnectX-7 via 4 OSFP; "
        "SemiAnalysis, 100k H100 clusters (2024-06)",
        "estimate": False,
    },
    {
        "slug": "dgx-h100-bf3",
        "name": "DGX H100 class server with BlueField-3 back-end NICs",
        "gpu": "h100-sxm",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,
        "nics": 8,
        "nic_kind": "bluefield3",  # adds 8 x 50 W -> 10.6 kW
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): BlueField-3 instead of ConnectX-7",
        "estimate": False,
    },
    {
        "slug": "hgx-h200-8",
        "name": "HGX H200 8-GPU server",
        "gpu": "h200",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,  # same host platform as HGX H100
        "nics": 8,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "H100 overhead (SemiAnalysis 2024-06) assumed for the same HGX host platform",
        "estimate": True,
    },
    {
        "slug": "hgx-b200-8",
        "name": "HGX B200 8-GPU server",
        "gpu": "b200",
        "gpus_per_node": 8,
        "overhead_w": 6300.0,  # DGX B200 ~14.3 kW max minus 8 x 1,000 W
        "nics": 8,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 400.0,
        "rack_units": 10,
        "source": "NVIDIA DGX B200 datasheet (2024): ~14.3 kW max, 10U, 8x ConnectX-7 400G",
        "estimate": True,
    },
    {
        "slug": "gb200-nvl72-tray",
        "name": "GB200 NVL72 compute tray (2 Grace + 4 Blackwell)",
        "gpu": "gb200",
        "gpus_per_node": 4,
        # 18 trays x (4 x 1,200 W + 2,530 W) = 132 kW per NVL72 rack; the tray's share of the NVSwitch
        # trays, Grace CPUs, NICs, fans and power-shelf losses.
        "overhead_w": 2530.0,
        "nics": 4,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 400.0,
        "rack_units": 1,
        "source": "NVIDIA GB200 NVL72 (2024): 18 compute trays of 4 GPUs, 1U; rack ~120-132 kW "
        "(SemiAnalysis GB200 hardware architecture, 2024-07)",
        "estimate": True,
    },
    {
        "slug": "dgx-a100",
        "name": "NVIDIA DGX A100",
        "gpu": "a100-sxm",
        "gpus_per_node": 8,
        "overhead_w": 3300.0,  # 6.5 kW max minus 8 x 400 W
        "nics": 8,
        "nic_kind": "connectx7",  # ConnectX-6 HDR; plain NIC, power in the overhead
        "nic_speed_gbps": 200.0,
        "rack_units": 6,
        "source": "NVIDIA DGX A100 datasheet (2020): 6.5 kW max, 6U, 8x ConnectX-6 200G",
        "estimate": False,
    },
    {
        "slug": "mi300x-8",
        "name": "AMD Instinct MI300X 8-GPU OAM platform",
        "gpu": "mi300x",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,  # same class of dual-socket host, fans and PSUs as HGX H100
        "nics": 8,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "AMD Instinct MI300X platform (2023): 8 OAM; host overhead assumed equal to HGX H100 "
        "(SemiAnalysis 2024-06)",
        "estimate": True,
    },
    {
        "slug": "mi325x-8",
        "name": "AMD Instinct MI325X 8-GPU OAM platform",
        "gpu": "mi325x",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,
        "nics": 8,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "AMD Instinct MI325X platform (2024): 8 OAM; host overhead assumed equal to HGX H100",
        "estimate": True,
    },
    {
        "slug": "hgx-h20-8",
        "name": "HGX H20 8-GPU server",
        "gpu": "h20",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,
        "nics": 8,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "HGX host platform assumed; H100 overhead (SemiAnalysis 2024-06)",
        "estimate": True,
    },
    {
        "slug": "atlas-800t-a2",
        "name": "Huawei Atlas 800T A2 (8x Ascend 910B)",
        "gpu": "ascend-910b",
        "gpus_per_node": 8,
        "overhead_w": 2400.0,  # 4 Kunpeng 920 CPUs, fans and PSU losses, ~300 W per NPU
        "nics": 8,
        "nic_kind": "roce-200ge",  # 200GE RoCE ports integrated on each NPU; power in the overhead
        "nic_speed_gbps": 200.0,
        "rack_units": 4,
        "source": "Huawei Atlas 800T A2 training server as described publicly (2023); overhead estimated",
        "estimate": True,
    },
    {
        "slug": "mlu370-x8-8",
        "name": "Cambricon MLU370-X8 8-card server",
        "gpu": "cambricon-mlu370",
        "gpus_per_node": 8,
        "overhead_w": 1600.0,  # dual-socket PCIe host, ~200 W per card
        "nics": 4,
        "nic_kind": "connectx7",
        "nic_speed_gbps": 100.0,
        "rack_units": 4,
        "source": "Cambricon MLU370-X8 product page (2022); host overhead and NICs estimated",
        "estimate": True,
    },
    # ------------------------------------------------ 2025-2028 (docs/catalog.md, "2025-2028 systems")
    {
        "slug": "gb300-nvl72-tray",
        "name": "GB300 NVL72 compute tray (2 Grace + 4 Blackwell Ultra)",
        "gpu": "gb300",
        "gpus_per_node": 4,
        # 18 trays x (4 x 1,400 W + 2,200 W) = 140.4 kW per rack, inside the published ~135-150 kW.
        "overhead_w": 2200.0,
        "nics": 4,
        "nic_kind": "connectx8",
        "nic_speed_gbps": 800.0,
        "rack_units": 1,
        "source": "NVIDIA GB300 NVL72 (2025): 18 compute trays of 4 GPUs and 4 ConnectX-8, 1U; rack ~135-150 kW "
        "(SemiAnalysis, 'GB300 NVL72', 2025); tray overhead estimated so the rack lands in that range",
        "estimate": True,
    },
    {
        "slug": "hgx-b300-8",
        "name": "HGX B300 8-GPU server",
        "gpu": "b300",
        "gpus_per_node": 8,
        "overhead_w": 5500.0,  # DGX B300 ~14.3 kW max minus 8 x 1,100 W
        "nics": 8,
        "nic_kind": "connectx8",
        "nic_speed_gbps": 800.0,
        "rack_units": 10,
        "source": "NVIDIA DGX B300 datasheet (2025): ~14 kW, 8 ConnectX-8 800G; overhead estimated",
        "estimate": True,
    },
    {
        "slug": "vr200-nvl144-tray",
        "name": "Vera Rubin NVL144 compute tray (2 Vera + 4 Rubin)",
        "gpu": "vr200",
        "gpus_per_node": 4,
        # 18 trays x (4 x 1,800 W + 4,000 W) = 201.6 kW per rack, inside the reported ~190-230 kW.
        "overhead_w": 4000.0,
        "nics": 4,
        "nic_kind": "connectx8",  # ConnectX-9 1.6T announced; counted as one 800G port per GPU here
        "nic_speed_gbps": 800.0,
        "rack_units": 1,
        "source": "NVIDIA Vera Rubin NVL144 (GTC 2025, 2026 availability): 18 compute trays of 4 Rubin "
        "packages in an Oberon rack, fully liquid-cooled; rack ~190-230 kW (SemiAnalysis, 2025); tray "
        "overhead (Vera CPUs, NICs, NVLink switch share, power-shelf losses) estimated",
        "estimate": True,
    },
    {
        "slug": "rubin-ultra-nvl576-blade",
        "name": "Rubin Ultra NVL576 compute blade (Kyber rack)",
        "gpu": "rubin-ultra",
        "gpus_per_node": 2,
        # 72 blades x (2 x 3,600 W + 1,150 W) = 601 kW per Kyber rack (~600 kW, NVIDIA roadmap).
        "overhead_w": 1150.0,
        "nics": 2,
        "nic_kind": "connectx8",
        "nic_speed_gbps": 800.0,
        "rack_units": 1,
        "source": "NVIDIA GTC 2025 roadmap: Rubin Ultra NVL576 (2027) in the Kyber rack, 4 canisters of 18 "
        "vertical compute blades, 144 packages, ~600 kW per rack, 800 VDC power; blade split and overhead "
        "estimated",
        "estimate": True,
    },
    {
        "slug": "mi355x-8",
        "name": "AMD Instinct MI355X 8-GPU OAM platform (direct liquid cooling)",
        "gpu": "mi355x",
        "gpus_per_node": 8,
        "overhead_w": _H100_OVERHEAD_W,  # same class of dual-socket host as HGX H100
        "nics": 8,
        "nic_kind": "connectx7",  # 400G NICs (Pollara 400 or ConnectX-7)
        "nic_speed_gbps": 400.0,
        "rack_units": 8,
        "source": "AMD Instinct MI355X platform (2025-06): 8 OAM at 1,400 W, liquid-cooled only; host overhead "
        "assumed equal to HGX H100 (SemiAnalysis 2024-06)",
        "estimate": True,
    },
    {
        "slug": "cloudmatrix-384-server",
        "name": "Huawei CloudMatrix 384 compute server (8x Ascend 910C)",
        "gpu": "ascend-910c",
        "gpus_per_node": 8,
        # 48 servers x (8 x 850 W + 4,850 W) = 559 kW, the supernode's all-in power with the Unified Bus
        # switches and its 6,912 optical modules carried in the servers' overhead.
        "overhead_w": 4850.0,
        "nics": 8,
        "nic_kind": "roce-200ge",  # scale-out RoCE ports on the NPUs; the UB scale-up plane is inside
        "nic_speed_gbps": 200.0,
        "rack_units": 8,
        "source": "SemiAnalysis, 'Huawei AI CloudMatrix 384' (2025-04): 384 Ascend 910C in 12 compute racks "
        "(4 servers of 8) and 4 network racks, ~559 kW all-in; CloudMatrix 384 paper (arXiv 2506.12708): "
        "8 NPUs and 4 Kunpeng CPUs per server; per-server split estimated",
        "estimate": True,
    },
]

# Share of a server's heat that its cold plates carry into the liquid loop when it sits in a
# direct-to-chip rack; the rest (memory, drives, NICs and optics, PSU losses, fans) leaves in the air.
# A server with no cold-plate version sends everything to air (0, the default).
_COLD_PLATE_8GPU = (
    "estimate: cold plates on the 8 GPUs and the CPUs carry ~70-80% of an 8-GPU server's heat; memory, "
    "NICs, drives and PSU losses stay on air (vendor direct-liquid-cooled HGX kits)"
)
LIQUID_HEAT_FRACTIONS: dict[str, tuple[float, str]] = {
    "hgx-h100-8": (0.75, _COLD_PLATE_8GPU),
    "dgx-h100": (0.75, _COLD_PLATE_8GPU),
    "dgx-h100-bf3": (0.75, _COLD_PLATE_8GPU),
    "hgx-h200-8": (0.75, _COLD_PLATE_8GPU),
    "hgx-b200-8": (0.75, _COLD_PLATE_8GPU),
    "hgx-h20-8": (0.75, _COLD_PLATE_8GPU),
    "mi300x-8": (0.75, _COLD_PLATE_8GPU),
    "mi325x-8": (0.75, _COLD_PLATE_8GPU),
    "gb200-nvl72-tray": (
        0.85,
        "estimate: GB200 NVL72 compute and NVLink switch trays are cold-plated; ~85% of the rack's heat goes "
        "to liquid and 10-15% to air (NVIDIA GB200 NVL72 reference designs, 2024)",
    ),
    "gb300-nvl72-tray": (
        0.85,
        "estimate: as GB200 NVL72, compute and switch trays cold-plated (NVIDIA GB300 NVL72, 2025)",
    ),
    "hgx-b300-8": (0.75, _COLD_PLATE_8GPU),
    "vr200-nvl144-tray": (
        1.0,
        "NVIDIA Vera Rubin NVL144 (2025): 100 % liquid-cooled, no fans in the compute trays",
    ),
    "rubin-ultra-nvl576-blade": (1.0, "NVIDIA Kyber rack (2025 roadmap): 100 % liquid-cooled blades"),
    "mi355x-8": (0.75, _COLD_PLATE_8GPU),
    "cloudmatrix-384-server": (
        0.8,
        "estimate: Huawei Atlas 900 A3 SuperPoD / CloudMatrix 384 servers ship with cold plates on the NPUs "
        "and CPUs (Huawei, 2025); share as an 8-GPU cold-plate server",
    ),
}
for _row in NODE_MODELS:
    _share, _why = LIQUID_HEAT_FRACTIONS.get(_row["slug"], (0.0, ""))
    _row["liquid_heat_fraction"] = _share
    if _why:
        _row["source"] += f"; liquid heat share {_share:g}: {_why}"
        _row["estimate"] = True

# ---------------------------------------------------------------- switches

# power_w_optics: the QM9700 figures (747 W with DAC, ~1,500 W with optics) differ by ~12 W per 400G
# port, the transceiver power the switch supplies; the 128-port boxes are scaled the same way.
SWITCH_MODELS: list[Row] = [
    {
        "slug": "quantum-2-qm9700",
        "name": "NVIDIA Quantum-2 QM9700",
        "vendor": "NVIDIA",
        "fabric": "infiniband-ndr",
        "radix": 64,
        "port_speed_gbps": 400.0,
        "power_w_copper": 747.0,
        "power_w_optics": 1500.0,
        "rack_units": 1,
        "source": "NVIDIA QM9700 datasheet (2022); SemiAnalysis, 100k H100 clusters (2024-06)",
        "estimate": False,
    },
    {
        "slug": "spectrum-x-sn5600",
        "name": "NVIDIA Spectrum-X SN5600",
        "vendor": "NVIDIA",
        "fabric": "spectrum-x",
        "radix": 128,
        "port_speed_gbps": 400.0,
        "power_w_copper": 1000.0,
        "power_w_optics": 2500.0,  # + 128 x ~12 W
        "rack_units": 2,
        "source": "NVIDIA Spectrum-X SN5600 (2023): 51.2 Tb/s, 64x800G = 128x400G, 2U; power estimated",
        "estimate": True,
    },
    {
        "slug": "tomahawk5-128x400",
        "name": "Broadcom Tomahawk 5 51.2T switch (128x400G)",
        "vendor": "Broadcom",
        "fabric": "tomahawk5",
        "radix": 128,
        "port_speed_gbps": 400.0,
        "power_w_copper": 900.0,
        "power_w_optics": 2400.0,  # + 128 x ~12 W
        "rack_units": 2,
        "source": "Broadcom Tomahawk 5 (BCM78900, 2022): 51.2 Tb/s; box power estimated",
        "estimate": True,
    },
    {
        "slug": "ethernet-128x200ge",
        "name": "25.6T Ethernet switch (128x200GE)",
        "vendor": "Broadcom",
        "fabric": "roce-200ge",
        "radix": 128,
        "port_speed_gbps": 200.0,
        "power_w_copper": 700.0,
        "power_w_optics": 1450.0,  # + 128 x ~6 W 200G modules
        "rack_units": 2,
        "source": "Broadcom Tomahawk 4 (BCM56990, 2019): 25.6 Tb/s = 128 x 200GE, the class of leaf and spine "
        "built for 200GE RoCE clusters; box power estimated",
        "estimate": True,
    },
    # 800G generation: power_w_optics adds ~15 W per 800G port (half a 1.6T twin-port OSFP).
    {
        "slug": "quantum-x800-q3400",
        "name": "NVIDIA Quantum-X800 Q3400 (144x800G XDR)",
        "vendor": "NVIDIA",
        "fabric": "infiniband-xdr",
        "radix": 144,
        "port_speed_gbps": 800.0,
        "power_w_copper": 2700.0,
        "power_w_optics": 4860.0,  # + 144 x 15 W
        "rack_units": 4,
        "source": "NVIDIA Quantum-X800 Q3400-RA datasheet (2024): 115.2 Tb/s, 144 ports of 800 Gb/s XDR in 72 "
        "twin-port OSFP cages, 4U; power estimated",
        "estimate": True,
    },
    {
        "slug": "spectrum-x800-sn5600",
        "name": "NVIDIA Spectrum-X800 SN5600 (64x800G)",
        "vendor": "NVIDIA",
        "fabric": "spectrum-x800",
        "radix": 64,
        "port_speed_gbps": 800.0,
        "power_w_copper": 1000.0,
        "power_w_optics": 1960.0,  # + 64 x 15 W
        "rack_units": 2,
        "source": "NVIDIA Spectrum-X800 Ethernet platform (GTC 2024): SN5600, 51.2 Tb/s as 64 x 800GbE with "
        "ConnectX-8 SuperNICs; power estimated as the 400G SN5600 row",
        "estimate": True,
    },
    {
        "slug": "tomahawk6-128x800",
        "name": "Broadcom Tomahawk 6 102.4T switch (128x800G)",
        "vendor": "Broadcom",
        "fabric": "tomahawk6",
        "radix": 128,
        "port_speed_gbps": 800.0,
        "power_w_copper": 1600.0,
        "power_w_optics": 3520.0,  # + 128 x 15 W
        "rack_units": 2,
        "source": "Broadcom Tomahawk 6 (BCM78910, 2025-06): 102.4 Tb/s, 128 x 800GbE (or 64 x 1.6T, 512 x "
        "200G); box power estimated",
        "estimate": True,
    },
]

# ---------------------------------------------------------------- link media

_HOURS_PER_YEAR = 8760.0
# NIC-leaf optical link (both transceivers and the fibre): MTBF ~5 years (SemiAnalysis 2024-06).
_OPTICAL_LINK_MTBF_H = 5 * _HOURS_PER_YEAR
_DUAL_PORT_LINK_MTBF_H = 4 * _HOURS_PER_YEAR

LINK_MEDIA: list[Row] = [
    {
        "slug": "dac",
        "name": "Passive copper DAC",
        "kind": "copper",
        "max_reach_m": 3.0,
        "power_w_per_end": 0.0,  # passive
        "relative_cost": 0.2,
        "mtbf_hours": 1_000_000.0,  # no active parts; an order above optics
        "is_optical": False,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): DAC < 3 m, ~0 W; cost and MTBF estimated",
        "estimate": True,
    },
    {
        "slug": "aec",
        "name": "Active electrical cable (AEC)",
        "kind": "copper",
        "max_reach_m": 7.0,
        "power_w_per_end": 6.0,  # retimer per end
        "relative_cost": 0.5,
        "mtbf_hours": 200_000.0,
        "is_optical": False,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): AEC < 7 m; power, cost and MTBF estimated",
        "estimate": True,
    },
    {
        "slug": "sr",
        "name": "Multimode SR / AOC 400G",
        "kind": "optical",
        "max_reach_m": 50.0,
        "power_w_per_end": 10.0,
        "relative_cost": 1.0,  # the reference
        "mtbf_hours": _OPTICAL_LINK_MTBF_H,
        "is_optical": True,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): multimode <= 50 m, 400G transceiver ~10-12 W, "
        "NIC-leaf optical link MTBF ~5 years",
        "estimate": False,
    },
    {
        "slug": "dr",
        "name": "Single-mode DR4 400G",
        "kind": "optical",
        "max_reach_m": 500.0,
        "power_w_per_end": 12.0,
        "relative_cost": 2.5,
        "mtbf_hours": _OPTICAL_LINK_MTBF_H,  # assumed equal to the SR link
        "is_optical": True,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): single-mode ~2.5x multimode cost; "
        "MTBF assumed equal to multimode",
        "estimate": True,
    },
    {
        "slug": "fr",
        "name": "Single-mode FR4 400G",
        "kind": "optical",
        "max_reach_m": 2000.0,
        "power_w_per_end": 12.0,
        "relative_cost": 2.5,
        "mtbf_hours": _OPTICAL_LINK_MTBF_H,
        "is_optical": True,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): single-mode ~2.5x multimode cost; "
        "MTBF assumed equal to multimode",
        "estimate": True,
    },
    {
        "slug": "zr",
        "name": "Coherent 400ZR (campus / metro)",
        "kind": "optical",
        "max_reach_m": 80_000.0,
        "power_w_per_end": 20.0,  # coherent DSP module
        "relative_cost": 12.0,  # "> 10x" multimode
        "mtbf_hours": _OPTICAL_LINK_MTBF_H,
        "is_optical": True,
        "source": "SemiAnalysis, 100k H100 clusters (2024-06): coherent > 2 km at > 10x cost; OIF 400ZR "
        "(2020) 80 km; power, cost and MTBF estimated",
        "estimate": True,
    },
    {
        "slug": "nvlink",
        "name": "NVLink copper (in node / NVL72 spine)",
        "kind": "nvlink",
        "max_reach_m": 2.0,
        "power_w_per_end": 0.0,  # counted in the GPU and NVSwitch power
        "relative_cost": 0.0,  # included in the system price
        "mtbf_hours": 1_000_000.0,
        "is_optical": False,
        "source": "NVIDIA GB200 NVL72 (2024): copper NVLink spine within the rack; MTBF estimated",
        "estimate": True,
    },
]

# ---------------------------------------------------------------- failure rates

DEFAULT_JOB_RATE_SET = "llama3-2024"
INFRASTRUCTURE_RATE_SET = "infrastructure-estimates"

# Llama 3 405B pre-training (Dubey et al., arXiv 2407.21783, Table 5): 419 unexpected interruptions in
# a 54-day snapshot on 16,384 H100 GPUs in 2,048 eight-GPU servers.
LLAMA3_GPUS = 16_384
LLAMA3_NODES = 2_048
LLAMA3_DAYS = 54
LLAMA3_HOURS = LLAMA3_DAYS * 24.0
_LLAMA3_SOURCE = "Llama 3 paper, arXiv 2407.21783 (2024-07), Table 5: 419 interruptions, 54 days, 16,384 H100"

# component -> (paper category, interruptions, per, repair_hours). Repair hours are estimates of how long
# the unit is out of the pool (the job itself restarts on spares after ``restart_minutes``):
# a GPU swap takes 24-72 h including diagnosis and RMA logistics; causes fixed by a restart take 0 h.
LLAMA3_INTERRUPTIONS: dict[str, tuple[str, int, str, float]] = {
    "gpu": ("Faulty GPU", 148, "gpu", 48.0),
    "hbm": ("GPU HBM3 memory", 72, "gpu", 48.0),  # the GPU is swapped
    "gpu_sram": ("GPU SRAM memory", 19, "gpu", 48.0),
    "gpu_gsp": ("GPU system processor", 17, "gpu", 2.0),  # firmware reset / reboot, re-test
    "gpu_thermal": ("GPU thermal interface + sensor", 6, "gpu", 8.0),  # rework thermal interface
    "sdc": ("Silent data corruption", 6, "gpu", 48.0),  # the suspect GPU is swapped
    "software": ("Software bug", 54, "node", 0.0),
    "host_maintenance": ("Host maintenance", 32, "node", 4.0),
    "nic": ("Network interface card", 7, "node", 8.0),
    "nccl_watchdog": ("NCCL watchdog timeouts", 7, "node", 0.0),
    "ssd": ("SSD", 3, "node", 8.0),
    "psu": ("Power supply", 3, "node", 4.0),  # hot-swappable PSU
    "chassis": ("Server chassis", 2, "node", 24.0),
    "io_board": ("IO expansion board", 2, "node", 24.0),
    "dependency": ("Dependency", 2, "node", 1.0),  # an external service; back once it is
    "cpu": ("CPU", 2, "node", 24.0),
    "system_memory": ("System memory", 2, "node", 8.0),
    # switch and cable failures, spread over nodes: each node's share of the fabric
    "network": ("Network switch/cable", 35, "node", 4.0),
}


def _llama3_rows() -> list[Row]:
    units = {"gpu": LLAMA3_GPUS, "node": LLAMA3_NODES}
    rows = []
    for component, (category, count, per, repair_hours) in LLAMA3_INTERRUPTIONS.items():
        # n events on U units in H hours -> one unit fails every U*H/n hours
        rows.append(
            {
                "component": component,
                "per": per,
                "mtbf_hours": round(units[per] * LLAMA3_HOURS / count, 1),
                "interrupts_job": True,
                "repair_hours": repair_hours,
                "dataset": "llama3-2024",
                "source": f"{_LLAMA3_SOURCE}; '{category}' {count} events; repair hours estimated",
                "estimate": False,
            }
        )
    return rows


def _per_node_day_rate_row(dataset: str, failures_per_1000_node_days: float, cluster: str) -> Row:
    return {
        "component": "node",
        "per": "node",
        "mtbf_hours": round(1000.0 / failures_per_1000_node_days * 24.0, 1),
        "interrupts_job": True,
        "repair_hours": 24.0,  # node out for triage and repair; estimate
        "dataset": dataset,
        "source": f"Kokolis et al., Revisiting Reliability in Large-Scale ML Research Clusters, arXiv "
        f"2410.21680 (2024): {cluster} {failures_per_1000_node_days} failures per 1,000 node-days; "
        "repair hours estimated",
        "estimate": False,
    }


# Job-interruption sets for GPU generations with no published large-scale failure data. Each is the
# Llama 3 H100 per-class table under its own name, every row flagged as an estimate with the assumption
# spelled out, so a campus of these parts never borrows the H100 figures silently. Replace a set when a
# public interruption log of that generation appears.
ESTIMATED_RATE_SETS: dict[str, str] = {
    "amd-instinct-estimate": "AMD Instinct MI300X/MI325X: no published large-scale interruption log; assumed "
    "at parity with H100 (same HBM3 generation, 8-GPU OAM servers of similar power)",
    "huawei-ascend-estimate": "Huawei Ascend 910B: no published large-scale interruption log; assumed at "
    "parity with H100 per GPU and per node (8-NPU Atlas 800T A2 servers)",
    "nvidia-blackwell-estimate": "NVIDIA Blackwell (B200, GB200): no published large-scale interruption log "
    "yet; assumed at parity with H100 per GPU and per node",
    "cambricon-estimate": "Cambricon MLU370: no published large-scale interruption log; assumed at parity "
    "with H100 per card and per node",
}


def _estimated_rows(dataset: str, assumption: str) -> list[Row]:
    return [
        {
            **row,
            "dataset": dataset,
            "source": f"ESTIMATE. {assumption}. Rates of {row['source']}",
            "estimate": True,
        }
        for row in _llama3_rows()
    ]


# GPU model -> the job-interruption set of its generation and vendor (``estimate``: the set was not
# measured on this model; ``basis`` says why it applies).
GPU_FAILURE_RATE_SETS: dict[str, Row] = {
    "h100-sxm": {"dataset": "llama3-2024", "estimate": False, "basis": "measured on H100 (Llama 3, Table 5)"},
    "h200": {
        "dataset": "llama3-2024",
        "estimate": True,
        "basis": "Hopper like the H100 of the Llama 3 log (same die, larger HBM3e); assumed equal",
    },
    "h20": {
        "dataset": "llama3-2024",
        "estimate": True,
        "basis": "Hopper like the H100 of the Llama 3 log (cut-down die); assumed equal",
    },
    "a100-sxm": {
        "dataset": "meta-rsc1-2024",
        "estimate": False,
        "basis": "measured on the A100 RSC-1 cluster (Kokolis et al., arXiv 2410.21680)",
    },
    "mi300x": {
        "dataset": "amd-instinct-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["amd-instinct-estimate"],
    },
    "mi325x": {
        "dataset": "amd-instinct-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["amd-instinct-estimate"],
    },
    "ascend-910b": {
        "dataset": "huawei-ascend-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["huawei-ascend-estimate"],
    },
    "b200": {
        "dataset": "nvidia-blackwell-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["nvidia-blackwell-estimate"],
    },
    "gb200": {
        "dataset": "nvidia-blackwell-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["nvidia-blackwell-estimate"],
    },
    "gb300": {
        "dataset": "nvidia-blackwell-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["nvidia-blackwell-estimate"],
    },
    "b300": {
        "dataset": "nvidia-blackwell-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["nvidia-blackwell-estimate"],
    },
    "vr200": {
        "dataset": "nvidia-blackwell-estimate",
        "estimate": True,
        "basis": "NVIDIA Rubin: no published interruption log; the Blackwell estimate (parity with H100) carried forward",
    },
    "rubin-ultra": {
        "dataset": "nvidia-blackwell-estimate",
        "estimate": True,
        "basis": "NVIDIA Rubin Ultra: no published interruption log; the Blackwell estimate (parity with H100) carried forward",
    },
    "mi355x": {
        "dataset": "amd-instinct-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["amd-instinct-estimate"],
    },
    "ascend-910c": {
        "dataset": "huawei-ascend-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["huawei-ascend-estimate"],
    },
    "cambricon-mlu370": {
        "dataset": "cambricon-estimate",
        "estimate": True,
        "basis": ESTIMATED_RATE_SETS["cambricon-estimate"],
    },
}

_OPTICS_SOURCE = "SemiAnalysis, 100k H100 clusters (2024-06)"
_IEEE_493 = "IEEE Std 493-2007 (Gold Book) order of magnitude"

FAILURE_RATES: list[Row] = [
    *_llama3_rows(),
    _per_node_day_rate_row("meta-rsc1-2024", 6.50, "RSC-1"),
    _per_node_day_rate_row("meta-rsc2-2024", 2.34, "RSC-2"),
    *(row for name, why in ESTIMATED_RATE_SETS.items() for row in _estimated_rows(name, why)),
    # Component-level optics set: every link failure counts, whether or not a job was running.
    {
        "component": "optics_link",
        "per": "link",
        "mtbf_hours": _OPTICAL_LINK_MTBF_H,
        "interrupts_job": True,
        "repair_hours": 4.0,  # swap a transceiver or re-terminate; estimate
        "dataset": "optics-component",
        "source": f"{_OPTICS_SOURCE}: NIC-leaf optical link MTBF ~5 years; repair estimated",
        "estimate": False,
    },
    {
        "component": "optics_link_dual_port",
        "per": "link",
        "mtbf_hours": _DUAL_PORT_LINK_MTBF_H,
        "interrupts_job": True,
        "repair_hours": 4.0,
        "dataset": "optics-component",
        "source": f"{_OPTICS_SOURCE}: dual-port 2x400G link MTBF ~4 years; repair estimated",
        "estimate": False,
    },
    {
        "component": "copper_link",
        "per": "link",
        "mtbf_hours": 1_000_000.0,
        "interrupts_job": True,
        "repair_hours": 2.0,
        "dataset": "optics-component",
        "source": f"{_OPTICS_SOURCE}: copper links more reliable than optics; MTBF estimated",
        "estimate": True,
    },
    {
        "component": "switch",
        "per": "switch",
        "mtbf_hours": 250_000.0,  # vendor-calculated MTBFs of data-centre switches are 2-5e5 h
        "interrupts_job": True,
        "repair_hours": 8.0,  # swap from spares
        "dataset": "optics-component",
        "source": "Vendor Telcordia SR-332 MTBF range for data-centre switches; estimate",
        "estimate": True,
    },
    # Facility classes that none of the job sets covers. Whether a failure reaches a job depends on
    # redundancy and ride-through, which the power and cooling models decide: interrupts_job=False.
    {
        "component": "utility_feed",
        "per": "device",
        "mtbf_hours": round(_HOURS_PER_YEAR / 1.956, 1),  # 1.956 outages per year, single circuit
        "interrupts_job": False,
        "repair_hours": 1.32,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": f"{_IEEE_493}: single-circuit utility supply 1.956 failures/yr, 1.32 h; estimate",
        "estimate": True,
    },
    {
        "component": "transformer",
        "per": "device",
        "mtbf_hours": round(_HOURS_PER_YEAR / 0.0059, 1),
        "interrupts_job": False,
        "repair_hours": 168.0,  # replaced from a spare; repair in place takes weeks
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": f"{_IEEE_493}: liquid-filled power transformer ~0.006 failures/yr; estimate",
        "estimate": True,
    },
    {
        "component": "switchgear",
        "per": "device",
        "mtbf_hours": round(_HOURS_PER_YEAR / 0.005, 1),
        "interrupts_job": False,
        "repair_hours": 24.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": f"{_IEEE_493}: metal-clad switchgear and breakers ~0.005 failures/yr; estimate",
        "estimate": True,
    },
    {
        "component": "ups",
        "per": "device",
        "mtbf_hours": 250_000.0,
        "interrupts_job": False,
        "repair_hours": 8.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": "Vendor double-conversion UPS module MTBF claims 2e5-1e6 h; estimate",
        "estimate": True,
    },
    {
        "component": "pdu",
        "per": "device",
        "mtbf_hours": 500_000.0,
        "interrupts_job": False,
        "repair_hours": 4.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": "Vendor rack/floor PDU MTBF claims 4e5-1e6 h; estimate",
        "estimate": True,
    },
    # DC distribution stages (docs/model.md, "DC power architectures"): no field data published yet.
    {
        "component": "sst",
        "per": "device",
        "mtbf_hours": 250_000.0,
        "interrupts_job": False,
        "repair_hours": 8.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": "Estimate: a solid-state transformer module taken at the double-conversion UPS module's "
        "vendor MTBF (power electronics of the same class); no published field data for MV SSTs (2025)",
        "estimate": True,
    },
    {
        "component": "rectifier",
        "per": "device",
        "mtbf_hours": 250_000.0,
        "interrupts_job": False,
        "repair_hours": 4.0,  # hot-swappable rectifier shelves
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": "Estimate: a sidecar power rack (OCP Mt Diablo, 2025) taken at a UPS module's vendor MTBF; "
        "its rectifier shelves are hot-swapped",
        "estimate": True,
    },
    {
        "component": "dc_busway",
        "per": "device",
        "mtbf_hours": 500_000.0,
        "interrupts_job": False,
        "repair_hours": 4.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": "Estimate: a DC busway taken at the PDU's vendor MTBF claims (4e5-1e6 h)",
        "estimate": True,
    },
    {
        "component": "cdu",
        "per": "device",
        "mtbf_hours": 100_000.0,  # pumps dominate
        "interrupts_job": False,
        "repair_hours": 8.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": "Coolant distribution unit with redundant pumps, estimate from pump reliability data",
        "estimate": True,
    },
    {
        "component": "chiller",
        "per": "device",
        "mtbf_hours": 50_000.0,
        "interrupts_job": False,
        "repair_hours": 24.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": f"{_IEEE_493}: chillers among the least reliable facility items; estimate",
        "estimate": True,
    },
    {
        # Standby failures that show up when the generator is called; the per-demand probability is
        # POWER_DEFAULTS["generator_fail_to_start_probability"].
        "component": "generator",
        "per": "device",
        "mtbf_hours": 50_000.0,
        "interrupts_job": False,
        "repair_hours": 24.0,
        "dataset": INFRASTRUCTURE_RATE_SET,
        "source": f"{_IEEE_493}: standby diesel generator; estimate",
        "estimate": True,
    },
]

# ---------------------------------------------------------------- facility and training constants


def _d(value: float, unit: str, source: str, estimate: bool) -> Row:
    return {"value": value, "unit": unit, "source": source, "estimate": estimate}


_SEMI = "SemiAnalysis, 100k H100 clusters (2024-06)"
_RC_NOTE = (
    "estimate fitted so that with heat removal stopped a liquid-cooled group goes from steady state "
    "to shutdown in ~30 s and an air-cooled rack in ~3 min (Opengate Data Systems, Data Center Emergency "
    "Cooling Study for Active Power, 2007: 10 kW+ cabinets in under a minute, 5 kW cabinets in ~3 min)"
)

# Lumped thermal model C dT/dt = P - G (T - T_coolant), both C and G scaled by the load in kW.
# Liquid: P/G = 40 K above a 25 °C supply -> 65 °C at full load; C/P gives 27 K to 92 °C in ~30 s.
# Air: P/G = 50 K above a 25 °C inlet -> 75 °C; C/P gives 17 K to 92 °C in ~170 s.
COOLING_DEFAULTS: dict[str, Row] = {
    "air_cooling_limit_kw_per_rack": _d(
        40.0,
        "kW/rack",
        "Estimate: air cooling runs out around 30-50 kW per rack; 40 kW holds 4 DGX H100 at 10.2 kW each "
        "(NVIDIA DGX H100 user guide, 2023)",
        True,
    ),
    "coolant_flow_lpm_per_kw": _d(
        1.5, "L/min per kW", "Vendor CDU sizing 1.5-2 L/min per kW (~10 K rise in water)", False
    ),
    "supply_temp_c": _d(25.0, "°C", "ASHRAE TC 9.9 liquid cooling classes W17-W45 (2021)", False),
    "return_temp_c": _d(45.0, "°C", "ASHRAE TC 9.9 liquid cooling classes W17-W45 (2021)", False),
    "cdu_in_rack_kw": _d(100.0, "kW", "In-rack CDUs ~50-200 kW (vendor ranges); mid value", True),
    "cdu_facility_kw": _d(2000.0, "kW", "In-row / facility CDUs ~1-5 MW (vendor ranges); mid value", True),
    "chiller_restart_minutes": _d(
        6.0,
        "min",
        "Chiller restart after a power event: 4-8 min typical, up to ~30 min (vendor restart data)",
        True,
    ),
    "chiller_cop": _d(5.0, "W/W", "Water-cooled centrifugal chiller COP 5-7; low end", True),
    # Fan and pump power from the hydraulics, P = V x dp / eta, per kW of heat moved.
    "crah_fan_kw_per_kw_heat": _d(
        0.04,
        "kW per kW of heat",
        "estimate: air at 12 K rise moves 1 kW in 0.069 m³/s (1.2 kg/m³ x 1,005 J/(kg K)); "
        "x 400 Pa total pressure / 0.65 fan-and-motor efficiency = 42 W",
        True,
    ),
    "cdu_pump_kw_per_kw_heat": _d(
        0.02,
        "kW per kW of heat",
        "estimate: 2 L/min per kW (top of vendor CDU sizing) = 3.3e-5 m³/s x 300 kPa (cold plates, "
        "manifolds, heat exchanger) / 0.5 pump-and-drive efficiency = 20 W",
        True,
    ),
    "liquid_heat_capacity_j_per_k_per_kw": _d(1100.0, "J/K per kW", _RC_NOTE, True),
    "liquid_conductance_w_per_k_per_kw": _d(25.0, "W/K per kW", _RC_NOTE, True),
    "air_heat_capacity_j_per_k_per_kw": _d(10000.0, "J/K per kW", _RC_NOTE, True),
    "air_conductance_w_per_k_per_kw": _d(20.0, "W/K per kW", _RC_NOTE, True),
    "pue_liquid": _d(
        1.15,
        "ratio",
        "Estimate: liquid-cooled AI halls ~1.1-1.2 (Google's fleet-wide trailing-twelve-month PUE ~1.10, "
        "Google data center efficiency report); mid value",
        True,
    ),
    "pue_air": _d(
        1.5,
        "ratio",
        "Estimate: air-cooled halls ~1.4-1.6, around the 1.58 average of the Uptime Institute Global Data "
        "Center Survey (2023); mid value",
        True,
    ),
    "pue_global_2023": _d(1.58, "ratio", "Uptime Institute Global Data Center Survey (2023)", False),
    # ---- the plant model (campus.analysis.facility, docs/model.md "Facility physics")
    "cdu_approach_k": _d(
        3.0,
        "K",
        "Estimate: liquid-to-liquid CDU approach (facility water supply below the secondary supply) 2-5 K "
        "in vendor CDU datasheets (e.g. Vertiv CoolChip CDU, CoolIT CHx); mid value",
        True,
    ),
    "crah_coil_approach_k": _d(
        8.0,
        "K",
        "Estimate: chilled water supply below the CRAH's supply air (ASHRAE TC 9.9 thermal guidelines: "
        "18-27 °C supply air; chilled water 10-18 °C in elevated-temperature designs)",
        True,
    ),
    "chw_delta_t_k": _d(
        6.0,
        "K",
        "Chilled-water design rise 5.6 K (10 °F), ASHRAE 90.1 Appendix G (G3.1.3.8 uses 6.7 K)",
        True,
    ),
    "condenser_delta_t_k": _d(
        5.6, "K", "Condenser water range 10 °F (3 gpm/ton), AHRI 550/590 rating conditions", False
    ),
    "tower_approach_k": _d(
        4.0,
        "K",
        "Cooling tower leaving water above wet-bulb 3-5 K (CTI; ASHRAE Handbook HVAC Systems and "
        "Equipment, ch. 40); mid value",
        True,
    ),
    "economiser_hx_approach_k": _d(
        2.0, "K", "Plate heat exchanger approach 1-3 K (ASHRAE 90.1 6.5.1.2 water economiser design)", True
    ),
    "dry_cooler_approach_k": _d(
        6.0,
        "K",
        "Dry cooler leaving water above dry-bulb at rated duty 5-10 K (vendor dry cooler catalogues, e.g. "
        "Güntner, Alfa Laval); low-middle value",
        True,
    ),
    "cycles_of_concentration": _d(
        4.0,
        "ratio",
        "Cooling tower cycles of concentration 3-6 (US DOE FEMP, Cooling Towers: Understanding Key "
        "Components of Cooling Towers and How to Improve Water Efficiency, 2011)",
        True,
    ),
    "water_latent_heat_kj_per_kg": _d(
        2430.0, "kJ/kg", "Latent heat of vaporisation of water at 30 °C (IAPWS-IF97 steam tables)", False
    ),
    "fan_pump_min_speed": _d(
        0.3,
        "fraction of design speed",
        "Estimate: variable-speed drives on fans and pumps turn down to ~20-40 % of design speed",
        True,
    ),
    "chw_pump_w_per_gpm": _d(
        22.0, "W per gpm", "ASHRAE 90.1-2019 Appendix G, G3.1.3.10: chilled-water pumps 22 W/gpm", False
    ),
    "cw_pump_w_per_gpm": _d(
        19.0, "W per gpm", "ASHRAE 90.1-2019 Appendix G, G3.1.3.11: condenser-water pumps 19 W/gpm", False
    ),
    "tower_gpm_per_hp": _d(
        38.2,
        "gpm per fan hp",
        "ASHRAE 90.1 Appendix G, G3.1.3.11: baseline axial-fan open cooling tower 38.2 gpm/hp",
        False,
    ),
    # ---- closed-loop heat rejection (campus.analysis.facility.rejection, docs/model.md "Heat rejection")
    "air_chiller_cop": _d(
        2.96,
        "W/W",
        "ASHRAE 90.1-2019 Table 6.8.1-3: air-cooled chillers, minimum full-load efficiency 10.1 EER "
        "(Btu/Wh, path A, >= 150 tons) = 2.96 W/W at the AHRI 550/590 rating point (6.67 °C leaving "
        "chilled water, 35 °C entering air); compressors and condenser fans",
        False,
    ),
    "air_chiller_rating_air_c": _d(
        35.0, "°C", "AHRI 550/590 air-cooled rating condition: 95 °F entering condenser air", False
    ),
    "air_chiller_rating_water_c": _d(
        6.67, "°C", "AHRI 550/590 rating condition: 44 °F leaving chilled water", False
    ),
    "air_chiller_condensing_approach_k": _d(
        15.0,
        "K",
        "Estimate: refrigerant condensing temperature above the entering air of an air-cooled condenser, "
        "~14-17 K (ASHRAE Handbook HVAC Systems and Equipment, ch. 39: 125 °F condensing at 95 °F air)",
        True,
    ),
    "air_chiller_evaporator_approach_k": _d(
        3.0,
        "K",
        "Estimate: leaving chilled water above the evaporating refrigerant, 2-4 K (flooded and DX "
        "evaporators, ASHRAE Handbook HVAC Systems and Equipment, ch. 43)",
        True,
    ),
    "air_chiller_min_condensing_c": _d(
        25.0,
        "°C",
        "Estimate: head-pressure control keeps the condensing temperature above ~25 °C in cold air "
        "(expansion valves need a pressure difference); below it the COP no longer rises",
        True,
    ),
    "air_chiller_capacity_derate_per_k": _d(
        0.01,
        "fraction per K",
        "Estimate: air-cooled chiller capacity falls ~1 % per K of entering air above the 35 °C rating "
        "(vendor high-ambient capacity tables, e.g. Trane Sintesis, Carrier AquaForce 30XA)",
        True,
    ),
    "air_chiller_fan_share": _d(
        0.1,
        "fraction of rated input",
        "Estimate: condenser fans draw ~8-12 % of an air-cooled chiller's rated input (vendor data, e.g. "
        "Carrier AquaForce 30XA); they run the free-cooling coil when the compressors are off",
        True,
    ),
    "adiabatic_effectiveness": _d(
        0.8,
        "fraction",
        "Estimate: saturation effectiveness of the wetted pads or spray of an adiabatic dry cooler, "
        "0.7-0.9 (ASHRAE Handbook HVAC Systems and Equipment, ch. 41, direct evaporative coolers)",
        True,
    ),
    "adiabatic_switch_c": _d(
        20.0,
        "°C",
        "Estimate: dry bulb below which an adiabatic dry cooler never wets its pads (scale and freezing; "
        "vendors set the switch-over 20-28 °C); above it water is sprayed only when the dry coil at full "
        "fan speed cannot reject the heat",
        True,
    ),
    "dry_cooler_air_rise_k": _d(
        10.0,
        "K",
        "Estimate: air temperature rise across a dry cooler coil at rated duty, 8-12 K (vendor dry cooler "
        "catalogues); sets the air flow whose precooling an adiabatic cooler pays for in water",
        True,
    ),
}

POWER_DEFAULTS: dict[str, Row] = {
    "price_usd_per_kwh": _d(0.078, "USD/kWh", f"{_SEMI}: US EIA average industrial rate", False),
    "other_it_fraction": _d(
        0.10,
        "fraction of IT power",
        f"{_SEMI}: storage, CPU nodes, switches, optics ~10%; the allowance for IT not inventoried",
        False,
    ),
    "efficiency_substation": _d(0.995, "output/input", "Utility substation step-down losses; estimate", True),
    "efficiency_transformer": _d(
        0.99, "output/input", "DOE 2016 distribution transformer levels ~98.9-99.2%", True
    ),
    "efficiency_switchgear": _d(0.999, "output/input", "Breaker and bus losses; estimate", True),
    "efficiency_generator": _d(
        1.0, "output/input", "Source in the chain; its fuel is costed by grid_limit (fuel_usd_per_mwh)", True
    ),
    "efficiency_ups": _d(0.96, "output/input", "Double-conversion UPS at typical load 94-97%", True),
    "efficiency_pdu": _d(0.995, "output/input", "PDU with no transformer, cable losses only; estimate", True),
    "efficiency_busway": _d(0.998, "output/input", "Busway conductor losses; estimate", True),
    "efficiency_rpp": _d(0.998, "output/input", "Remote power panel; estimate", True),
    # DC distribution (docs/model.md, "DC power architectures"). The rack's own conversion (AC PSUs or the
    # 800 VDC → 50 V DC/DC shelves) stays inside the servers' catalog power in every architecture.
    "efficiency_sst": _d(
        0.985,
        "output/input",
        "NVIDIA Technical Blog, 'NVIDIA 800 VDC Architecture Will Power the Next Generation of AI Factories' "
        "(2025-05) and white paper '800 VDC Architecture for Next-Generation AI Factories' (2025-10): a "
        "solid-state transformer takes 13.8-35 kV AC straight to 800 VDC, replacing the LV transformer, the "
        "UPS's double conversion and the AC PDU; 98.5 % is an estimate at the top of SST makers' stated "
        "97.5-98.5 %",
        True,
    ),
    "efficiency_rectifier": _d(
        0.975,
        "output/input",
        "OCP Mt Diablo (Diablo 400) disaggregated power rack (Meta, Microsoft, Google; OCP 2025): sidecar "
        "power racks convert 480 VAC to ±400 VDC with battery backup units; 97.5 % as the OCP Open Rack V3 "
        "power-shelf peak-efficiency class; estimate",
        True,
    ),
    "efficiency_dc_busway": _d(
        0.999,
        "output/input",
        "Estimate: I²R loss of a DC busway at 800 V (2 conductors at 1.25 A per kW) is about half an AC "
        "busway's at 415 V (3 conductors at 1.39 A per kW) on the same copper, 0.1 % beside the AC busway's "
        "0.2 %",
        True,
    ),
    "loss_reference_load": _d(
        0.5,
        "fraction of rating",
        "Load at which a device's efficiency is quoted: US DOE 10 CFR 431.196 rates medium-voltage "
        "distribution transformers at 50 % load; UPS datasheets quote 50 % as typical",
        False,
    ),
    "ups_eco_efficiency": _d(
        0.98,
        "output/input",
        "A UPS rated at or above this efficiency runs in eco mode (bypass): ~99 % (vendor eco-mode "
        "figures; The Green Grid WP #48), double conversion 94-97 %",
        True,
    ),
    "max_utilization": _d(0.8, "fraction of rating", "NEC 80% continuous-load rule for breakers", False),
    "ups_battery_minutes": _d(5.0, "min", "Typical UPS ride-through sized to cover generator start", True),
    "generator_start_delay_s": _d(10.0, "s", "NFPA 110 Type 10 emergency power: 10 s", False),
    "generator_ramp_s": _d(
        60.0,
        "s",
        "Estimate: diesel generator block loading to full load (about a minute for a single block step; "
        "stepped loading of large sets takes up to 90 min)",
        True,
    ),
    "generator_fail_to_start_probability": _d(
        0.01, "per demand", f"{_IEEE_493}: standby diesel fail-to-start ~1%; estimate", True
    ),
    # Battery energy storage (campus.models.EnergyStorage) and on-site generation (PowerDevice prime rating).
    "bess_round_trip_efficiency": _d(
        0.85,
        "AC energy out / AC energy in",
        "NREL Annual Technology Baseline, utility-scale battery storage (2020 onward): 85% round trip, "
        "after Cole and Frazier, NREL/TP-6A20-75385 (2020)",
        False,
    ),
    "bess_response_ms": _d(
        20.0,
        "ms",
        "Estimate: an inverter-based battery following the campus's own load answers within about one AC cycle "
        "(16.7-20 ms); the 2018 AEMO report on the Hornsdale Power Reserve shows sub-second answers to grid "
        "frequency events, which include the measurement",
        True,
    ),
    "bess_hours": _d(
        2.0,
        "h (energy / power)",
        "NREL Annual Technology Baseline 2024, utility-scale battery storage: durations of 2-10 h, 2 h the "
        "shortest",
        False,
    ),
    "generator_fuel_usd_per_mwh_diesel": _d(
        263.0,
        "USD/MWh electric",
        "EIA Gasoline and Diesel Fuel Update: 2024 U.S. average on-highway diesel $3.76/gal, times ~0.07 gal "
        "per kWh for a large diesel set at full load (e.g. 1,000 kW at ~71 gal/h); estimate",
        True,
    ),
    "generator_fuel_usd_per_mwh_gas": _d(
        35.0,
        "USD/MWh electric",
        "EIA Natural Gas Annual: 2024 U.S. industrial price ~$3.9/thousand ft³ (~$3.8/MMBtu), times a "
        "heat rate of ~9,000 Btu/kWh for gas engines and aeroderivative turbines (EIA Electric Power Annual, "
        "Table 8.2); estimate",
        True,
    ),
    "generator_prime_ramp_kw_per_s_per_mw": _d(
        10.0,
        "kW/s per MW of prime rating (1 %/s)",
        "Estimate: gas engines and aeroderivative turbines follow load at about 1 % of rating per second "
        "(a 50 MW turbine ~30 MW/min); used when a prime generator has neither ramp_kw_per_s nor ramp_s",
        True,
    ),
    # Demand response (grid_limit's flexibility plan, docs/grid.md).
    "ups_reserve_margin_s": _d(
        120.0,
        "s",
        "Estimate: margin kept in the UPS batteries beyond the generators' start delay and ramp, for one "
        "failed start and a retry (NFPA 110 Type 10 sets 10 s to power; a second crank cycle takes ~15-60 s); "
        "the UPS reserve is never dispatched for demand response",
        True,
    ),
    "bess_cycle_usd_per_mwh": _d(
        60.0,
        "USD/MWh discharged",
        "Estimate: battery wear per MWh discharged, a lithium-ion system's capital (~$300/kWh, NREL ATB 2024 "
        "utility-scale storage) over ~6,000 full cycles at 80 % depth of discharge: 300 / (6,000 x 0.8) = "
        "$62/MWh, rounded",
        True,
    ),
    "gpu_hour_value_usd": _d(
        2.0,
        "USD per GPU-hour",
        "Estimate: the value of an hour of one training GPU's work, near H100 on-demand rental prices of "
        "2024-2025 (~$2-3 per GPU-hour, SemiAnalysis GPU rental index); used to cost capped or paused work",
        True,
    ),
    "bess_depth_of_discharge": _d(
        0.8,
        "fraction of nameplate energy",
        "Estimate: lithium-ion storage is cycled to 80-90 % of its nameplate energy to keep its cycle life "
        "(cycle-life warranties are commonly stated at 80 % depth of discharge); 80 % the conservative end",
        True,
    ),
    "dr_pause_notice_minutes": _d(
        5.0,
        "min",
        "A paused job saves a checkpoint first: checkpoint write ~5 min (Kokolis et al., arXiv 2410.21680, "
        "2024); the notice a campus needs before it can pause jobs for an event",
        False,
    ),
}

TRAINING_DEFAULTS: dict[str, Row] = {
    "mfu_bf16": _d(0.40, "fraction of peak", f"{_SEMI}: ~40% BF16 on H100; Llama 3 405B 38-43%", False),
    "mfu_fp8": _d(0.35, "fraction of peak", f"{_SEMI}: ~35% FP8 for trillion-parameter models", False),
    "checkpoint_write_minutes": _d(5.0, "min", "Kokolis et al., arXiv 2410.21680 (2024)", False),
    "restart_minutes": _d(10.0, "min", "Kokolis et al., arXiv 2410.21680 (2024): 5-20 min; mid value", True),
    "checkpoint_interval_minutes": _d(
        180.0, "min", "BLOOM 176B training: checkpoint every 3 h (2022)", False
    ),
    "ettr_target": _d(0.90, "fraction", "Llama 3 paper, arXiv 2407.21783: ETTR above 90%", False),
    "hot_spare_fraction": _d(
        0.10, "fraction of nodes", "OPT-175B logbook (2022): 12 spare nodes for 124 in use", False
    ),
    "in_memory_lost_steps": _d(
        1.0,
        "steps",
        "In-memory reconstruction from peer HBM loses at most ~1 step (Gemini report, Google, 2023)",
        True,
    ),
    "backend_gbps_per_gpu": _d(400.0, "Gb/s", f"{_SEMI}: one 400G back-end port per GPU", False),
}

_DEFAULT_TABLES: tuple[dict[str, Row], ...] = (COOLING_DEFAULTS, POWER_DEFAULTS, TRAINING_DEFAULTS)

# ---------------------------------------------------------------- prices (capex, bill of materials)

# One row per priced item: kind (what it prices), item (the model, device kind or class), the unit it is priced
# in, the unit price in USD, its source and year, and whether it is an estimate (lead times are
# LEAD_TIMES_WEEKS', below). ``campus.analysis.capex.unit_price`` reads them (a campus may override any row by its
# key "kind/item", ``Campus.price_overrides``); docs/capex.md gives each with its reasoning. Prices are
# equipment supplied and installed, in the USD of their year, without land, interconnection fees or tax.
_EST_KW = "estimate: installed equipment per kW of rating (docs/model.md, 'Redundancy topologies')"
_EST_COOL = "estimate: installed equipment per kW of heat (docs/model.md, 'Redundancy topologies')"
_CHEAH = (
    "E. Cheah, 'H100 Freakonomics: the economical tiers of H100s' (tech-talk-cto, 2024-08) and its "
    "spreadsheet, prices as of Aug 2024"
)
_SEMI_SERVER = "SemiAnalysis, 'AI Server Cost Analysis: Memory Is The Biggest Loser' (2023-05)"
_STREET_OPTICS = "estimate: 2024 street prices of third-party modules (FS.com-class list prices)"


def _p(
    kind: str,
    item: str,
    unit: str,
    usd: float,
    source: str,
    year: int,
    estimate: bool = True,
    notes: str = "",
) -> Row:
    return {
        "kind": kind,
        "item": item,
        "unit": unit,
        "unit_price_usd": usd,
        "source": source,
        "year": year,
        "estimate": estimate,
        "notes": notes,
    }


PRICES: list[Row] = [
    # power chain, per kW of rating
    _p(
        "power-device",
        "substation",
        "kW",
        60.0,
        _EST_KW,
        2024,
        notes="MV/HV transformer and breakers",
    ),
    _p(
        "power-device",
        "transformer",
        "kW",
        50.0,
        _EST_KW,
        2024,
        notes="MV/LV unit substation transformer",
    ),
    _p("power-device", "switchgear", "kW", 80.0, _EST_KW, 2024, notes="LV switchgear and paralleling gear"),
    _p("power-device", "generator", "kW", 350.0, _EST_KW, 2024, notes="diesel standby set, tank, enclosure"),
    _p(
        "power-device",
        "ups",
        "kW",
        300.0,
        _EST_KW,
        2024,
        notes="static double conversion, 5 min of batteries",
    ),
    _p("power-device", "pdu", "kW", 50.0, _EST_KW, 2024, notes="row power distribution / busway"),
    _p("power-device", "sst", "kW", 350.0, _EST_KW, 2024, notes="solid-state transformer with bus storage"),
    _p("power-device", "rectifier", "kW", 250.0, _EST_KW, 2024, notes="sidecar rectifier shelves and BBUs"),
    _p("power-device", "dc-busway", "kW", 30.0, _EST_KW, 2024, notes="~40 % less copper than the AC busway"),
    _p("power-device", "other", "kW", 100.0, _EST_KW, 2024, notes="a kind without its own row (busway, rpp)"),
    _p(
        "utility-feed",
        "utility-feed",
        "kW",
        100.0,
        "estimate for 2024 anchored on Valley Electric Association, 'Generator Interconnection Unit Cost "
        "Guide' (2017-02-10): a complete three-breaker 230 kV ring-bus substation terminating one line, "
        "$8.805 M in 2017 USD, is $88/kW of a 100 MW feed; rounded up to $100/kW for the price rises since",
        2024,
        notes="the utility's switching station and line terminal; the step-down transformers are the "
        "campus's own power devices; interconnection study fees and network upgrades excluded",
    ),
    _p(
        "energy-storage",
        "bess",
        "kWh",
        350.0,
        "estimate: utility-scale 4-hour lithium-ion battery, "
        "installed, per kWh usable (order of NREL Annual Technology Baseline 2024)",
        2024,
    ),
    # cooling, per kW of heat
    _p("cooling-unit", "cdu", "kW", 100.0, _EST_COOL, 2024),
    _p("cooling-unit", "crah", "kW", 150.0, _EST_COOL, 2024),
    _p("cooling-unit", "other", "kW", 100.0, _EST_COOL, 2024, notes="rear-door, immersion"),
    _p("cooling-plant", "chiller", "kW", 300.0, _EST_COOL, 2024, notes="with its tower or condenser, pumps"),
    _p("cooling-plant", "dry-cooler", "kW", 150.0, _EST_COOL, 2024),
    _p("cooling-plant", "cooling-tower", "kW", 100.0, _EST_COOL, 2024, notes="with plate exchanger, pumps"),
    _p("cooling-plant", "air-chiller", "kW", 350.0, _EST_COOL, 2024, notes="with free-cooling coil"),
    _p(
        "cooling-plant",
        "adiabatic-cooler",
        "kW",
        200.0,
        _EST_COOL,
        2024,
        notes="pads, spray, water treatment",
    ),
    _p("cooling-plant", "other", "kW", 100.0, _EST_COOL, 2024),
    # network: switches per box
    _p(
        "switch",
        "quantum-2-qm9700",
        "switch",
        36_000.0,
        f"{_CHEAH}: 64-port 400G InfiniBand switch at $36k (FS.com listing; NVIDIA's own about $50k)",
        2024,
        estimate=False,
    ),
    _p(
        "switch",
        "spectrum-x-sn5600",
        "switch",
        45_000.0,
        "estimate: 51.2T Spectrum-X box, street price",
        2024,
    ),
    _p("switch", "tomahawk5-128x400", "switch", 30_000.0, "estimate: 51.2T Tomahawk 5 white box", 2024),
    _p("switch", "ethernet-128x200ge", "switch", 20_000.0, "estimate: 25.6T Tomahawk 4 white box", 2024),
    _p("switch", "quantum-x800-q3400", "switch", 100_000.0, "estimate: 115.2T XDR InfiniBand, 4U", 2025),
    _p("switch", "spectrum-x800-sn5600", "switch", 45_000.0, "estimate: as the 400G SN5600", 2025),
    _p("switch", "tomahawk6-128x800", "switch", 60_000.0, "estimate: 102.4T Tomahawk 6 box", 2025),
    _p("switch", "other", "switch", 40_000.0, "estimate: a switch model without its own row", 2024),
    # network: optical modules per module, by reach class and line rate (<= 400G, 800G)
    _p(
        "optic",
        "sr-400g",
        "module",
        650.0,
        _STREET_OPTICS,
        2024,
        notes="multimode <= 50 m (OSFP/QSFP112 SR4)",
    ),
    _p("optic", "sr-800g", "module", 1_100.0, _STREET_OPTICS, 2024, notes="twin-port 2x400G SR8"),
    _p("optic", "dr-400g", "module", 1_100.0, _STREET_OPTICS, 2024, notes="single-mode <= 500 m"),
    _p("optic", "dr-800g", "module", 1_700.0, _STREET_OPTICS, 2024, notes="2xDR4 / DR8"),
    _p("optic", "fr-400g", "module", 1_300.0, _STREET_OPTICS, 2024, notes="single-mode <= 2 km"),
    _p("optic", "fr-800g", "module", 2_000.0, _STREET_OPTICS, 2024, notes="2xFR4"),
    _p("optic", "zr-400g", "module", 6_000.0, _STREET_OPTICS, 2024, notes="coherent 400ZR QSFP-DD, 80 km"),
    _p("optic", "zr-800g", "module", 12_000.0, _STREET_OPTICS, 2025, notes="coherent 800ZR"),
    _p("optic", "other", "module", 1_000.0, "estimate: a module of a medium of no reach class", 2024),
    # network: cables. Copper cables carry their own ends; a fibre is priced by its length plus its two
    # terminations (MPO connectors, polarity, testing).
    _p("cable", "dac-400g", "cable", 150.0, _STREET_OPTICS, 2024, notes="passive copper <= 3 m"),
    _p("cable", "dac-800g", "cable", 250.0, _STREET_OPTICS, 2024, notes="passive copper <= 3 m"),
    _p("cable", "aec-400g", "cable", 450.0, _STREET_OPTICS, 2024, notes="active electrical <= 7 m"),
    _p("cable", "aec-800g", "cable", 700.0, _STREET_OPTICS, 2024, notes="active electrical <= 7 m"),
    _p("cable", "other", "cable", 150.0, "estimate: a cable of a medium without its own row", 2024),
    _p("cable", "fiber-m", "m", 2.5, "estimate: MPO-12/16 trunk, OM4 or OS2, per metre", 2024),
    _p("cable", "fiber-termination", "cable", 40.0, "estimate: two MPO ends, polarity and test", 2024),
    _p(
        "cable",
        "nvlink",
        "cable",
        0.0,
        "NVIDIA GB200 NVL72 (2024): the NVLink spine is part of the rack",
        2024,
        estimate=False,
        notes="included in the system price",
    ),
    # compute, per server (GPUs, NICs, NVLink, CPUs, memory; rack-scale systems per tray, the rack's
    # NVLink switches and spine included)
    _p(
        "server",
        "hgx-h100-8",
        "server",
        310_000.0,
        f"{_CHEAH}: 8x H100 HGX node with 8 ConnectX-7 (Thinkmate quote $317k)",
        2024,
        estimate=False,
    ),
    _p(
        "server",
        "dgx-h100",
        "server",
        270_000.0,
        f"{_SEMI_SERVER}: DGX H100 sale price ~$270k",
        2023,
        estimate=False,
    ),
    _p("server", "dgx-h100-bf3", "server", 280_000.0, f"estimate: {_SEMI_SERVER} plus 8 BlueField-3", 2023),
    _p("server", "hgx-h200-8", "server", 330_000.0, "estimate: the H100 node with H200 boards", 2024),
    _p("server", "hgx-b200-8", "server", 450_000.0, "estimate: 8x B200 HGX node", 2025),
    _p("server", "hgx-b300-8", "server", 500_000.0, "estimate: 8x B300 HGX node", 2025),
    _p(
        "server",
        "gb200-nvl72-tray",
        "server",
        3_000_000.0 / 18,
        "estimate: about $3 M per GB200 NVL72 rack (2024 analyst reports), over its 18 compute trays",
        2024,
    ),
    _p(
        "server",
        "gb300-nvl72-tray",
        "server",
        3_700_000.0 / 18,
        "estimate: about $3.7 M per GB300 NVL72 rack, over its 18 compute trays",
        2025,
    ),
    _p(
        "server",
        "vr200-nvl144-tray",
        "server",
        6_000_000.0 / 18,
        "estimate: about $6 M per Vera Rubin NVL144 rack, over its 18 compute trays",
        2026,
    ),
    _p(
        "server",
        "rubin-ultra-nvl576-blade",
        "server",
        20_000_000.0 / 72,
        "estimate: about $20 M per Kyber NVL576 rack, over its 72 blades",
        2027,
    ),
    _p(
        "server",
        "dgx-a100",
        "server",
        199_000.0,
        "NVIDIA DGX A100 launch price (GTC, 2020-05)",
        2020,
        estimate=False,
    ),
    _p("server", "mi300x-8", "server", 250_000.0, "estimate: 8x MI300X OAM platform", 2024),
    _p("server", "mi325x-8", "server", 280_000.0, "estimate: 8x MI325X OAM platform", 2025),
    _p("server", "mi355x-8", "server", 320_000.0, "estimate: 8x MI355X OAM platform", 2025),
    _p("server", "hgx-h20-8", "server", 120_000.0, "estimate: 8x H20 HGX node", 2024),
    _p(
        "server", "atlas-800t-a2", "server", 150_000.0, "estimate: Huawei Atlas 800T A2, 8x Ascend 910B", 2024
    ),
    _p("server", "mlu370-x8-8", "server", 60_000.0, "estimate: 8x Cambricon MLU370-X8", 2023),
    _p(
        "server",
        "cloudmatrix-384-server",
        "server",
        8_000_000.0 / 48,
        "estimate: CloudMatrix 384 reported near $8 M for 384 Ascend 910C, over 48 servers of 8",
        2025,
    ),
    _p("server", "other", "gpu", 35_000.0, "estimate: per GPU of a server model without its own row", 2024),
    # building
    _p(
        "building",
        "shell",
        "m2",
        2_500.0,
        "estimate: shell, core and white-space fit-out per m2 of "
        "footprint, one storey (power and cooling equipment priced apart; land excluded)",
        2024,
    ),
    _p(
        "building",
        "row",
        "row",
        60_000.0,
        "estimate: a new rack row's fit-out: hot-aisle containment, overhead cable tray and ladder, lighting "
        "(the racks priced apart)",
        2024,
    ),
    _p(
        "building",
        "row",
        "row",
        60_000.0,
        "estimate: a new rack row's fit-out: hot-aisle containment, overhead cable tray and ladder, lighting "
        "(the racks priced apart)",
        2024,
    ),
    _p(
        "building",
        "hall",
        "m2",
        1_200.0,
        "estimate: white-space fit-out of a new hall inside a standing building (slab or raised floor, walls, "
        "fire detection and suppression, lighting, access control): about half of 'shell', whose shell and core "
        "stand already; power and cooling equipment priced apart",
        2024,
    ),
    _p("rack", "rack", "rack", 4_000.0, "estimate: 48U enclosure with containment and cabling trays", 2024),
    # the rack's own power and cooling parts: one in-rack PDU or busbar per feed that ends at the rack,
    # one manifold per direct-to-chip rack (its CDU is a cooling unit of the inventory)
    _p(
        "rack-power",
        "rack-pdu",
        "kW",
        75.0,
        "estimate: a metered three-phase rack PDU of 415 V 60 A (about 35 kW) near $2,600 in 2024, or an "
        "in-rack busbar with its tap-off, per kW of the feed's rating",
        2024,
        notes="one per power feed ending at a rack (A, B or N side)",
    ),
    _p(
        "rack-cooling",
        "rack-manifold",
        "rack",
        8_000.0,
        "estimate: a direct-to-chip rack's supply and return manifolds with dripless quick disconnects and "
        "hoses to the row CDU, 2024",
        2024,
        notes="one per direct-to-chip rack; rear-door and immersion units are cooling units of their own",
    ),
]

# ---------------------------------------------------------------- accessors


def _by_slug(rows: list[Row], slug: str, what: str) -> Row:
    for row in rows:
        if row["slug"] == slug:
            return row
    known = ", ".join(r["slug"] for r in rows)
    raise KeyError(f"unknown {what} {slug!r}; known: {known}")


def gpu(slug: str) -> Row:
    return _by_slug(GPU_MODELS, slug, "GPU model")


def node_model(slug: str) -> Row:
    return _by_slug(NODE_MODELS, slug, "node model")


def switch_model(slug: str) -> Row:
    return _by_slug(SWITCH_MODELS, slug, "switch model")


def medium(slug: str) -> Row:
    return _by_slug(LINK_MEDIA, slug, "link medium")


def nic_kind(slug: str) -> Row:
    try:
        return NIC_KINDS[slug]
    except KeyError:
        raise KeyError(f"unknown NIC kind {slug!r}; known: {', '.join(NIC_KINDS)}") from None


def datasets() -> list[str]:
    """Failure-rate data sets in catalog order."""
    return list(dict.fromkeys(r["dataset"] for r in FAILURE_RATES))


def gpu_failure_rate_set(slug: str) -> str:
    """The job-interruption data set of a GPU model ("" for a model the catalog does not map)."""
    return GPU_FAILURE_RATE_SETS.get(slug, {}).get("dataset", "")


def rates(dataset: str) -> list[Row]:
    """The failure-rate rows of one data set."""
    rows = [r for r in FAILURE_RATES if r["dataset"] == dataset]
    if not rows:
        raise KeyError(f"unknown failure-rate dataset {dataset!r}; known: {', '.join(datasets())}")
    return rows


def default_value(name: str) -> float:
    """The value of a cooling, power or training default by name."""
    for table in _DEFAULT_TABLES:
        if name in table:
            return table[name]["value"]
    raise KeyError(f"unknown default {name!r}; see COOLING_DEFAULTS, POWER_DEFAULTS, TRAINING_DEFAULTS")


def device_efficiency(kind: str) -> float:
    """Default output/input efficiency of a power device kind ("ups", "pdu", "dc-busway", ...)."""
    return default_value(f"efficiency_{kind.replace('-', '_')}")


def peak_tflops(gpu_row: Row) -> dict[str, float]:
    """Dense peak TFLOPS by precision, leaving out precisions the part lacks (as ``GpuSpec.peak_tflops``)."""
    out = {}
    for precision in ("fp8", "bf16", "fp16", "tf32"):
        value = gpu_row[f"peak_{precision}_tflops"]
        if value is not None:
            out[precision] = value
    return out


def node_power_w(slug: str) -> float:
    """Electrical power of one server at full GPU TDP, W (the same sum as ``CampusSnapshot.node_power_w``)."""
    node = node_model(slug)
    return (
        node["gpus_per_node"] * gpu(node["gpu"])["tdp_w"]
        + node["overhead_w"]
        + node["nics"] * nic_kind(node["nic_kind"])["extra_w_per_nic"]
    )


# Upper reach of each cable class, shortest first (SemiAnalysis, 100k H100 clusters, 2024-06).
_REACH_ORDER = ("dac", "aec", "sr", "dr", "fr")


def medium_for_length(length_m: float) -> str:
    """The cheapest medium that reaches ``length_m``: <=3 m dac, <=7 m aec, <=50 m sr, <=500 m dr,
    <=2,000 m fr, beyond that zr."""
    if length_m < 0:
        raise ValueError(f"cable length must not be negative, got {length_m} m")
    for slug in _REACH_ORDER:
        if length_m <= medium(slug)["max_reach_m"]:
            return slug
    return "zr"


# ---------------------------------------------------------------- expansion proposals (docs/placement.md)
# Lead times, weeks from order to delivery: what a proposal's time to power is made of (the longest of its
# additions). Published ranges with their sources; the figure taken is stated, estimates marked.
LEAD_TIMES_WEEKS: dict[str, Row] = {
    "substation": {
        "weeks": 210.0,
        "source": "Wood Mackenzie, 'Supply shortages and an inflexible market give rise to high power "
        "transformer lead times' (2024): large power transformers 80-210 weeks; the upper end taken",
        "estimate": False,
    },
    "transformer": {
        "weeks": 120.0,
        "source": "Wood Mackenzie, power transformer lead times (2024): ~120 weeks on average in 2024, up "
        "from ~50 weeks in 2021",
        "estimate": False,
    },
    "switchgear": {
        "weeks": 52.0,
        "source": "Construction Dive, 'Supply chain headaches persist 4 years into pandemic' (2024), quoting "
        "Manhattan Construction: switchgear and generators 42-60 weeks; the middle taken",
        "estimate": False,
    },
    "generator": {
        "weeks": 52.0,
        "source": "Construction Dive (2024), as switchgear: generators 42-60 weeks; the middle taken",
        "estimate": False,
    },
    "gas-turbine": {
        "weeks": 260.0,
        "source": "S&P Global Commodity Insights (Platts), 2025-05-20, quoting EPRI: OEMs quote 5-7 years for "
        "a new gas turbine order; 5 years taken (aeroderivative units 1-2 years)",
        "estimate": False,
    },
    "ups": {
        "weeks": 26.0,
        "source": "Data Center Frontier executive roundtable, Q2 2023: UPS and generators 'stabilized with "
        "reasonable lead times'; 26 weeks is an estimate",
        "estimate": True,
    },
    "chiller": {
        "weeks": 30.0,
        "source": "Linesight data centre market research (2024): extended cooling equipment lead times; 30 weeks "
        "is an estimate",
        "estimate": True,
    },
    "building": {
        "weeks": 78.0,
        "source": "estimate: design and construction of a data-centre building shell in about 18 months "
        "(18-24 months is the range commonly quoted for large builds); less than its utility feed, which sets "
        "a new building's time to power",
        "estimate": True,
    },
    "hall": {
        "weeks": 26.0,
        "source": "estimate: fit-out of a hall inside a standing shell (floor, containment, fire "
        "suppression) in about 6 months",
        "estimate": True,
    },
    "utility_feed": {
        "weeks": 210.0,
        "source": "A larger grid connection waits on its substation transformer: as 'substation' (Wood "
        "Mackenzie 2024); the utility's interconnection study comes on top and is not counted (estimate)",
        "estimate": True,
    },
}
# Plants, CDUs and CRAHs take the chiller's lead time; a PDU or busway the switchgear's (the same LV gear).
LEAD_TIME_KIND: dict[str, str] = {
    "grid": "utility_feed",
    "pdu": "switchgear",
    "busway": "switchgear",
    "rpp": "switchgear",
    "dc-busway": "switchgear",
    "rectifier": "ups",
    "sst": "transformer",
    "cdu": "chiller",
    "crah": "chiller",
    "rear-door": "chiller",
    "in-row": "chiller",
    "dry-cooler": "chiller",
    "cooling-tower": "chiller",
    "air-chiller": "chiller",
    "adiabatic-cooler": "chiller",
}

# The step each addition comes in: a power device grows by modules of this rating, kW (a parallel unit or
# a module of a modular frame); estimates of common frame sizes.
EXPANSION_MODULE_KW: dict[str, Row] = {
    "ups": {
        "kw": 250.0,
        "source": "modular UPS power modules of 250 kW (e.g. 1.25 MW frames of 5); estimate",
    },
    "pdu": {"kw": 100.0, "source": "a 100 kW busway section or row PDU; estimate"},
    "busway": {"kw": 100.0, "source": "a 100 kW busway section; estimate"},
    "rpp": {"kw": 100.0, "source": "a 100 kW remote power panel; estimate"},
    "transformer": {"kw": 2500.0, "source": "a 2.5 MVA unit substation transformer (pf 1); estimate"},
    "switchgear": {
        "kw": 2500.0,
        "source": "a 4,000 A 480 V LV switchgear section (~2.5 MW at pf 0.8); estimate",
    },
    "substation": {"kw": 50_000.0, "source": "a 50 MVA MV/HV power transformer bay; estimate"},
    "generator": {"kw": 2500.0, "source": "a 2.5 MW standby diesel set; estimate"},
    "sst": {"kw": 1000.0, "source": "a 1 MW solid-state transformer module; estimate"},
    "rectifier": {"kw": 250.0, "source": "a 250 kW sidecar power rack; estimate"},
    "dc-busway": {"kw": 100.0, "source": "a 100 kW DC busway section; estimate"},
    "plant": {
        "kw": 3500.0,
        "source": "a ~1,000 ton (3.5 MW) centrifugal chiller or its dry-cooler bank; estimate",
    },
    "utility_feed": {"kw": 10_000.0, "source": "grid capacity asked of the utility in 10 MW steps; estimate"},
    "other": {"kw": 500.0, "source": "a 500 kW unit; estimate"},
}
