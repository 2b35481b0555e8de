"""The catalog defaults: required rows, sources, curve shapes and the published figures they encode."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The catalog is pure Python: make it importable without Django's project-path setup (-p no:django).
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from campus import catalog_data as cat  # noqa: E402
from campus.analysis.snapshot import FailureRate, GpuSpec, MediumSpec, NodeSpec, SwitchSpec  # noqa: E402

REQUIRED_GPUS = {"h100-sxm", "h200", "b200", "gb200", "a100-sxm", "mi300x", "ascend-910b"}
REQUIRED_NODES = {
    "hgx-h100-8",
    "dgx-h100",
    "hgx-h200-8",
    "hgx-b200-8",
    "gb200-nvl72-tray",
    "dgx-a100",
    "mi300x-8",
    "atlas-800t-a2",
}
REQUIRED_SWITCHES = {"quantum-2-qm9700", "spectrum-x-sn5600", "tomahawk5-128x400"}
REQUIRED_MEDIA = {"dac", "aec", "sr", "dr", "fr", "zr", "nvlink"}

ROW_LISTS = {
    "GPU_MODELS": cat.GPU_MODELS,
    "NODE_MODELS": cat.NODE_MODELS,
    "SWITCH_MODELS": cat.SWITCH_MODELS,
    "LINK_MEDIA": cat.LINK_MEDIA,
    "FAILURE_RATES": cat.FAILURE_RATES,
    "NIC_KINDS": list(cat.NIC_KINDS.values()),
    "COOLING_DEFAULTS": list(cat.COOLING_DEFAULTS.values()),
    "POWER_DEFAULTS": list(cat.POWER_DEFAULTS.values()),
    "TRAINING_DEFAULTS": list(cat.TRAINING_DEFAULTS.values()),
}


def _interp(curve: list[list[float]], x: float) -> float:
    for (x0, y0), (x1, y1) in zip(curve, curve[1:], strict=False):
        if x0 <= x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise ValueError(x)


def test_required_slugs_exist() -> None:
    assert {g["slug"] for g in cat.GPU_MODELS} >= REQUIRED_GPUS
    assert {n["slug"] for n in cat.NODE_MODELS} >= REQUIRED_NODES
    assert {s["slug"] for s in cat.SWITCH_MODELS} >= REQUIRED_SWITCHES
    assert {m["slug"] for m in cat.LINK_MEDIA} == REQUIRED_MEDIA


@pytest.mark.parametrize("rows", [cat.GPU_MODELS, cat.NODE_MODELS, cat.SWITCH_MODELS, cat.LINK_MEDIA])
def test_slugs_are_unique(rows: list[dict]) -> None:
    slugs = [r["slug"] for r in rows]
    assert len(slugs) == len(set(slugs))


@pytest.mark.parametrize("name", ROW_LISTS)
def test_every_row_has_a_source_and_an_estimate_flag(name: str) -> None:
    for row in ROW_LISTS[name]:
        assert isinstance(row["source"], str) and len(row["source"]) > 10, row
        assert isinstance(row["estimate"], bool), row


def test_node_models_point_at_catalog_gpus_and_nic_kinds() -> None:
    for node in cat.NODE_MODELS:
        cat.gpu(node["gpu"])
        cat.nic_kind(node["nic_kind"])
        assert node["nic_kind"] in {"connectx7", "bluefield3", "dual-port", "roce-200ge", "connectx8"}


def test_every_gpu_can_be_placed_in_some_node_model() -> None:
    assert {g["slug"] for g in cat.GPU_MODELS} == {n["gpu"] for n in cat.NODE_MODELS}


@pytest.mark.parametrize("row", cat.GPU_MODELS, ids=lambda r: r["slug"])
def test_cap_curve_is_sorted_monotone_and_ends_at_full_power(row: dict) -> None:
    curve = row["cap_curve"]
    caps = [c for c, _ in curve]
    throughputs = [t for _, t in curve]
    assert caps == sorted(caps) and len(set(caps)) == len(caps)
    assert all(b >= a for a, b in zip(throughputs, throughputs[1:], strict=False))
    assert curve[-1] == [1.0, 1.0]
    # the curve covers every settable cap, so lookups never clamp inside the allowed range
    assert caps[0] == pytest.approx(row["min_cap_fraction"])
    assert all(0.0 < t <= 1.0 for t in throughputs)
    # a power limit below TDP costs less throughput than power (Zeus, You et al., NSDI 2023, §2)
    assert all(t >= c for c, t in curve)


def test_gpu_thermal_limits_are_ordered() -> None:
    for row in cat.GPU_MODELS:
        assert row["slowdown_temp_c"] < row["shutdown_temp_c"], row["slug"]


def test_fp8_flag_matches_fp8_figure() -> None:
    for row in cat.GPU_MODELS:
        assert row["fp8_support"] == (row["peak_fp8_tflops"] is not None), row["slug"]


def test_published_gpu_figures() -> None:
    h100, a100 = cat.gpu("h100-sxm"), cat.gpu("a100-sxm")
    assert (h100["tdp_w"], h100["memory_gb"], h100["peak_bf16_tflops"], h100["peak_fp8_tflops"]) == (
        700,
        80,
        989,
        1979,
    )
    assert (h100["slowdown_temp_c"], h100["shutdown_temp_c"], h100["hbm_max_temp_c"]) == (87, 92, 95)
    assert (a100["tdp_w"], a100["memory_gb"], a100["peak_bf16_tflops"]) == (400, 80, 312)
    assert cat.peak_tflops(a100).keys() == {"bf16", "fp16", "tf32"}
    assert cat.gpu("gb200")["tdp_w"] == 1200
    assert (cat.gpu("mi300x")["tdp_w"], cat.gpu("mi300x")["memory_gb"]) == (750, 192)
    assert cat.gpu("ascend-910b")["estimate"] is True


def test_blackwell_curve_matches_published_power_profile_points() -> None:
    curve = cat.gpu("gb200")["cap_curve"]
    # ~15% energy saved at >97% performance near 1,000 W of 1,200 W
    cap = 1000.0 / 1200.0
    throughput = _interp(curve, cap)
    assert throughput > 0.97
    assert 1.0 - cap / throughput == pytest.approx(0.15, abs=0.02)
    # perf/W optimum near 1,000 W (Meta), not at the lowest cap
    best_cap = max(curve, key=lambda p: p[1] / p[0])[0]
    assert 0.8 <= best_cap <= 0.87


def test_hopper_curve_gives_zeus_band_of_energy_savings() -> None:
    curve = cat.gpu("h100-sxm")["cap_curve"]
    savings = {c: 1.0 - c / t for c, t in curve if t >= 0.9}
    assert any(0.15 <= s <= 0.30 for s in savings.values())


def test_hgx_h100_node_power_matches_dgx_h100_maximum() -> None:
    assert cat.node_power_w("hgx-h100-8") == pytest.approx(10_200, rel=0.01)
    # BlueField-3 adds ~50 W per NIC
    assert cat.node_power_w("dgx-h100-bf3") - cat.node_power_w("dgx-h100") == pytest.approx(8 * 50)


def test_gb200_nvl72_rack_of_18_trays_lands_in_published_range() -> None:
    tray = cat.node_model("gb200-nvl72-tray")
    assert (tray["gpus_per_node"], tray["rack_units"]) == (4, 1)
    rack_kw = 18 * cat.node_power_w("gb200-nvl72-tray") / 1000.0
    assert 120.0 <= rack_kw <= 132.0


def test_llama3_set_reproduces_419_interruptions_in_54_days() -> None:
    units = {"gpu": cat.LLAMA3_GPUS, "node": cat.LLAMA3_NODES}
    assert units == {"gpu": 16_384, "node": 2_048}
    hours = 54 * 24
    expected_events = sum(units[r["per"]] * hours / r["mtbf_hours"] for r in cat.rates("llama3-2024"))
    assert expected_events == pytest.approx(419, abs=0.5)
    gpu_events = sum(
        units["gpu"] * hours / r["mtbf_hours"] for r in cat.rates("llama3-2024") if r["per"] == "gpu"
    )
    assert gpu_events == pytest.approx(268, abs=0.5)  # 148+72+19+17+6+6
    faulty_gpu = next(r for r in cat.rates("llama3-2024") if r["component"] == "gpu")
    assert faulty_gpu["mtbf_hours"] == pytest.approx(16_384 * hours / 148, rel=1e-4)


def test_llama3_component_names() -> None:
    names = {r["component"] for r in cat.rates("llama3-2024")}
    assert names == {
        "gpu",
        "hbm",
        "gpu_sram",
        "gpu_gsp",
        "gpu_thermal",
        "sdc",
        "software",
        "host_maintenance",
        "nic",
        "nccl_watchdog",
        "ssd",
        "psu",
        "chassis",
        "io_board",
        "dependency",
        "cpu",
        "system_memory",
        "network",
    }


def test_meta_rsc_node_rates() -> None:
    (rsc1,) = cat.rates("meta-rsc1-2024")
    (rsc2,) = cat.rates("meta-rsc2-2024")
    assert 1000 * 24 / rsc1["mtbf_hours"] == pytest.approx(6.50, rel=1e-3)
    assert 1000 * 24 / rsc2["mtbf_hours"] == pytest.approx(2.34, rel=1e-3)


def test_optics_link_mtbf_is_five_years_and_dual_port_four() -> None:
    by_name = {r["component"]: r for r in cat.rates("optics-component")}
    assert by_name["optics_link"]["mtbf_hours"] == pytest.approx(43_800)
    assert by_name["optics_link_dual_port"]["mtbf_hours"] == pytest.approx(35_040)


def test_infrastructure_set_covers_facility_classes_only() -> None:
    infra = cat.rates(cat.INFRASTRUCTURE_RATE_SET)
    names = {r["component"] for r in infra}
    assert {"pdu", "ups", "cdu", "utility_feed", "transformer", "switchgear", "chiller", "generator"} <= names
    assert all(r["estimate"] for r in infra)
    job_components = {r["component"] for r in cat.rates(cat.DEFAULT_JOB_RATE_SET)}
    assert not names & job_components


def test_failure_rows_are_well_formed() -> None:
    for r in cat.FAILURE_RATES:
        assert r["per"] in {"gpu", "node", "link", "switch", "device"}, r
        assert r["mtbf_hours"] > 0 and r["repair_hours"] >= 0, r


def test_software_restart_needs_no_repair_but_a_gpu_swap_takes_a_day_or_more() -> None:
    by_name = {r["component"]: r for r in cat.rates("llama3-2024")}
    assert by_name["software"]["repair_hours"] == 0
    assert 24 <= by_name["gpu"]["repair_hours"] <= 72


@pytest.mark.parametrize(
    ("length_m", "slug"),
    [
        (0.0, "dac"),
        (3.0, "dac"),
        (3.01, "aec"),
        (7.0, "aec"),
        (7.5, "sr"),
        (50.0, "sr"),
        (50.1, "dr"),
        (500.0, "dr"),
        (501.0, "fr"),
        (2000.0, "fr"),
        (2000.1, "zr"),
        (80_000.0, "zr"),
    ],
)
def test_medium_for_length_boundaries(length_m: float, slug: str) -> None:
    assert cat.medium_for_length(length_m) == slug


def test_medium_for_negative_length_is_an_error() -> None:
    with pytest.raises(ValueError):
        cat.medium_for_length(-1.0)


def test_relative_cost_and_power_grow_with_reach() -> None:
    chain = [cat.medium(s) for s in ("dac", "aec", "sr", "dr", "fr", "zr")]
    costs = [m["relative_cost"] for m in chain]
    assert costs == sorted(costs)
    assert cat.medium("sr")["relative_cost"] == 1.0
    assert cat.medium("dr")["relative_cost"] == pytest.approx(2.5)
    assert cat.medium("zr")["relative_cost"] > 10
    assert all(m["is_optical"] == (m["kind"] == "optical") for m in cat.LINK_MEDIA)


@pytest.mark.parametrize(
    ("accessor", "slug"),
    [
        (cat.gpu, "h900"),
        (cat.node_model, "nope"),
        (cat.switch_model, "nope"),
        (cat.medium, "copper"),
        (cat.rates, "llama2"),
        (cat.default_value, "pue"),
        (cat.nic_kind, "cx9"),
    ],
)
def test_unknown_slug_raises_key_error_naming_it(accessor, slug: str) -> None:
    with pytest.raises(KeyError, match=slug):
        accessor(slug)


def test_default_names_are_unique_across_tables_and_resolve() -> None:
    names = [n for t in (cat.COOLING_DEFAULTS, cat.POWER_DEFAULTS, cat.TRAINING_DEFAULTS) for n in t]
    assert len(names) == len(set(names))
    assert cat.default_value("price_usd_per_kwh") == 0.078
    assert cat.default_value("mfu_bf16") == 0.40
    assert cat.default_value("chiller_restart_minutes") == 6
    assert cat.device_efficiency("ups") == 0.96


def _seconds_to_shutdown(heat_capacity_j_per_k_per_kw: float, conductance_w_per_k_per_kw: float) -> float:
    # steady state at 1 kW above 25 °C supply, then heat removal stops: dT/dt = P / C
    supply_c = cat.default_value("supply_temp_c")
    steady_c = supply_c + 1000.0 / conductance_w_per_k_per_kw
    return heat_capacity_j_per_k_per_kw * (cat.gpu("h100-sxm")["shutdown_temp_c"] - steady_c) / 1000.0


def test_thermal_rc_defaults_reproduce_published_transient_times() -> None:
    d = cat.default_value
    liquid_s = _seconds_to_shutdown(
        d("liquid_heat_capacity_j_per_k_per_kw"), d("liquid_conductance_w_per_k_per_kw")
    )
    air_s = _seconds_to_shutdown(d("air_heat_capacity_j_per_k_per_kw"), d("air_conductance_w_per_k_per_kw"))
    assert 0 < liquid_s < 60
    assert 60 <= air_s <= 15 * 60


def test_rows_build_snapshot_dataclasses() -> None:
    for g in cat.GPU_MODELS:
        GpuSpec(
            slug=g["slug"],
            name=g["name"],
            vendor=g["vendor"],
            tdp_w=g["tdp_w"],
            memory_gb=g["memory_gb"],
            peak_tflops=cat.peak_tflops(g),
            fp8_support=g["fp8_support"],
            scaleup_gbps=g["scaleup_gbps"],
            slowdown_temp_c=g["slowdown_temp_c"],
            shutdown_temp_c=g["shutdown_temp_c"],
            cap_curve=tuple(tuple(p) for p in g["cap_curve"]),
            min_cap_fraction=g["min_cap_fraction"],
        )
    for n in cat.NODE_MODELS:
        NodeSpec(
            **{k: n[k] for k in NodeSpec.__dataclass_fields__ if k != "nic_extra_w"},
            nic_extra_w=cat.nic_kind(n["nic_kind"])["extra_w_per_nic"],
        )
    for s in cat.SWITCH_MODELS:
        SwitchSpec(**{k: s[k] for k in SwitchSpec.__dataclass_fields__})
    for m in cat.LINK_MEDIA:
        MediumSpec(**{k: m[k] for k in MediumSpec.__dataclass_fields__})
    for r in cat.FAILURE_RATES:
        FailureRate(**{k: r[k] for k in FailureRate.__dataclass_fields__})


def test_docs_list_every_catalog_slug() -> None:
    text = (REPO / "docs" / "catalog.md").read_text(encoding="utf-8")
    slugs = [
        r["slug"]
        for rows in (cat.GPU_MODELS, cat.NODE_MODELS, cat.SWITCH_MODELS, cat.LINK_MEDIA)
        for r in rows
    ]
    names = [*cat.COOLING_DEFAULTS, *cat.POWER_DEFAULTS, *cat.TRAINING_DEFAULTS, *cat.datasets()]
    missing = [s for s in [*slugs, *names] if f"`{s}`" not in text]
    assert not missing


def test_each_component_appears_once_per_dataset() -> None:
    keys = [(r["dataset"], r["component"]) for r in cat.FAILURE_RATES]
    assert len(keys) == len(set(keys))
