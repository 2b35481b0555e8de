"""Names that explain themselves and runs explained in words: parameter titles and help, the metric catalogue,
cause and series labels, and the sentences of each kind checked against hand calculations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulations.engine import catalogue, registry
from simulations.engine.aggregate import aggregate
from simulations.engine.params import params_json_schema, title_of
from simulations.engine.registry import ScenarioKind
from simulations.engine.runner import run_replica
from tests.engine.builders import campus

G_LIQ = 25.0  # W/K per kW, the catalog's liquid conductance the params start from


def _properties(schema: dict):
    """Every property of a schema and of its nested models: (model, name, property)."""
    yield from (("", n, p) for n, p in schema.get("properties", {}).items())
    for model, definition in schema.get("$defs", {}).items():
        yield from ((model, n, p) for n, p in definition.get("properties", {}).items())


@pytest.mark.parametrize("kind", list(registry.MODELS))
def test_every_parameter_has_a_written_title_and_a_description(kind):
    for model, name, prop in _properties(params_json_schema(kind)):
        where = f"{kind} {model}.{name}"
        # pydantic's own title would be "Generator Start Delay S"
        assert prop.get("title"), where
        if "_" in name:
            assert prop["title"] != name.replace("_", " ").title(), where
        assert "_" not in prop["title"], where
        assert len(prop.get("description", "")) >= 15, where


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("generator_start_delay_s", "Generator start delay (s)"),
        ("duration_minutes", "Duration (min)"),
        ("battery_kwh", "Battery (kWh)"),
        ("price_usd_per_kwh", "Price (USD/kWh)"),
        ("liquid_heat_capacity_j_per_k_per_kw", "Liquid heat capacity (J/K per kW)"),
        ("job_gpus", "Job GPUs"),
        ("cpu_temp_c", "CPU temp (°C)"),
        ("supply_rise_k", "Supply rise (K)"),
    ],
)
def test_a_title_made_from_a_name_carries_its_unit_and_acronyms(name, title):
    assert title_of(name) == title


def test_pickers_are_marked_in_the_schema():
    caps = params_json_schema("power_capping")["$defs"]["CapRule"]["properties"]
    assert caps["gpu_model"]["x-picker"] == "gpu_model"
    assert caps["pod_id"]["x-picker"] == "pod"
    event = params_json_schema("liquid_cooling")["$defs"]["CduLossEvent"]["properties"]
    assert event["target_id"]["x-picker"] == "cooling_target"
    assert params_json_schema("grid_limit")["properties"]["pod_priorities"]["x-key-picker"] == "pod"
    assert params_json_schema("failure_cascade")["properties"]["gpu_models"]["x-picker"] == "gpu_model"


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("power_capping", {}),
        ("grid_limit", {"policy": "generators"}),
        ("liquid_cooling", {}),
        ("failure_cascade", {"duration_days": 3}),
        ("power_dynamics", {"duration_seconds": 60.0, "search": False}),
        ("heat_wave", {"days": 1}),
        ("training_step", {"model": "llama3-8b", "tp": 8, "pp": 1, "global_batch": 8}),
    ],
)
def test_every_metric_and_series_a_kind_produces_is_in_its_catalogue(kind, params):
    result = run_replica(kind, campus(), params, seed=3)
    known = catalogue.metrics(kind)
    assert set(result.metrics) <= set(known), set(result.metrics) - set(known)
    bases = {k.split(".")[2] if k.startswith("rack.") else k.split(".")[0] for k in result.series} - {
        "t_hours"
    }
    assert bases <= set(known), bases - set(known)
    for name, m in known.items():
        assert m.label and "_" not in m.label and m.description, name
        assert m.higher_is_better in (True, False, None)


def test_causes_keep_their_acronyms():
    assert catalogue.cause_label("cpu") == "CPU"
    assert catalogue.cause_label("nccl_watchdog") == "NCCL watchdog timeouts"
    assert catalogue.cause_label("sdc") == "Silent data corruption"
    assert catalogue.cause_label("ups") == "UPS"
    assert catalogue.cause_label("made_up_hbm_cause") == "Made up HBM cause"


def test_series_keys_read_as_words():
    assert (
        catalogue.series_label("liquid_cooling", "gpu_temp_c.liquid/h100-sxm/e0")
        == "GPU temperature (°C) — liquid-cooled, H100 SXM5 80GB, event 1"
    )
    assert (
        catalogue.series_label("liquid_cooling", "gpu_temp_c.air/h100-sxm/e0+e2")
        == "GPU temperature (°C) — air-cooled, H100 SXM5 80GB, events 1, 3"
    )
    assert catalogue.series_label("liquid_cooling", "rack.12.gpu_temp_c") == "GPU temperature (°C) — rack 12"
    # a building's draw over each chart interval: named in words, never "1.max_mw"
    assert catalogue.series_label("power_dynamics", "building.1.max_mw") == (
        "Building draw (MW) — building 1, highest"
    )
    assert (
        catalogue.series_label("power_dynamics", "building.2.mw") == "Building draw (MW) — building 2, mean"
    )
    assert catalogue.series_label("liquid_cooling", "coolant_temp_c") == "Coolant temperature (°C)"


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_figures_in_sentences_keep_three_significant_figures_and_integers_whole(x):
    text = catalogue.num(x)
    value = float(text.replace(",", ""))
    if float(x).is_integer():
        assert "." not in text and value == x
    elif abs(x) >= 1e-9:
        significant = text.replace(",", "").replace("-", "").replace(".", "").strip("0")
        assert len(significant) <= 3, text
        assert abs(value - x) <= abs(x) * 5e-3, text


def _explain(kind, snap, params, replicas=1):
    results = [run_replica(kind, snap, params, seed=s) for s in range(replicas)]
    agg = aggregate(results)
    summary = {"metrics": {k: v for k, v in agg.items() if k not in ("by_cause", "replicas", "events")}}
    summary["by_cause"] = agg["by_cause"]
    return catalogue.explain(kind, summary, params), summary


def test_a_cdu_lost_in_an_n_plus_1_group_is_explained_as_absorbed():
    # The partner CDU has 2.2x its own load of capacity: it carries the lost unit's heat, so the GPUs stay
    # at their steady temperature, 25 °C supply + 1,000 W / 25 W/K = 65 °C.
    params = {"events": [{"kind": "cdu_loss", "target_id": 500}]}
    words, summary = _explain("liquid_cooling", campus(cdu_groups=True), params)
    assert summary["metrics"]["min_cooling_fraction"]["mean"] == 1.0
    text = " ".join(words)
    assert "N+1" in text and "carry its heat" in text
    assert "No GPU throttled or shut down; the hottest GPU reached 65 °C." in words


def test_a_cdu_lost_without_a_group_is_explained_as_a_shutdown():
    # One CDU per 4 racks and no group: its flow stops and G falls to the 3 % residual. Hand calculation
    # (tests/engine/test_liquid_cooling.py): slowdown 25.16 s and shutdown 47.93 s after the loss.
    words, summary = _explain("liquid_cooling", campus(), {})
    text = " ".join(words)
    assert "kept 3 % of their cooling" in text
    assert "the first 47.9 s after the event" in text
    assert "interrupted once" in text


def test_power_capping_says_what_the_cap_cost():
    words, summary = _explain("power_capping", campus(), {"caps": [{"cap_fraction": 1.0}]})
    assert words[0] == "The caps cost no throughput: the GPUs' cap curves keep full speed at these limits."
    assert words[1].startswith("They saved 0 % of the facility energy")
    words, summary = _explain("power_capping", campus(), {"caps": [{"cap_fraction": 0.5}]})
    kept = summary["metrics"]["throughput_fraction"]["mean"]
    assert kept < 1
    assert f"cost {catalogue.pct(1 - kept)} of the throughput" in words[0]


def test_failure_cascade_names_goodput_and_the_largest_loss():
    words, summary = _explain("failure_cascade", campus(racks=16), {"duration_days": 20}, replicas=3)
    ettr = summary["metrics"]["ettr"]["mean"]
    assert words[0] == (
        f"Goodput: the job did useful training for {catalogue.pct(ettr)} of the 20 days (effective training "
        "time ratio)."
    )
    m = summary["metrics"]
    # the parts do not overlap: the downtime holds the waiting for capacity
    losses = {
        "lost work since the last checkpoint": m["lost_work_hours"]["mean"],
        "restarts and recovery": m["downtime_hours"]["mean"] - m["waiting_for_capacity_hours"]["mean"],
        "waiting for healthy capacity": m["waiting_for_capacity_hours"]["mean"],
        "writing checkpoints": m["checkpoint_overhead_hours"]["mean"],
    }
    # and they add up to the time not spent training: 20 days x (1 - ETTR)
    assert sum(losses.values()) == pytest.approx(20 * 24 * (1 - ettr), rel=1e-9, abs=1e-9)
    largest = max(losses, key=losses.get)
    assert f"went to {largest}" in words[-1]
    if summary["by_cause"]:
        top = max(summary["by_cause"], key=lambda c: summary["by_cause"][c]["mean"])
        assert catalogue.cause_label(top) in " ".join(words)


def test_grid_limit_without_a_shortfall_says_nothing_had_to_give():
    # a quarter of a 1 GW connection cut: the campus still fits (the default event, 75 % of the campus's own
    # draw, always binds)
    words, _ = _explain("grid_limit", campus(grid_capacity_kw=1e6), {"events": [{"cut_fraction": 0.25}]})
    assert words == ["The campus's demand stayed within the grid limit throughout; nothing had to give."]


def test_a_kind_without_words_explains_nothing_and_labels_from_names(monkeypatch):
    class Bare:
        KIND = "bare"
        LABEL = "Bare"
        Params = registry.model(ScenarioKind.POWER_CAPPING).Params

    monkeypatch.setitem(registry.MODELS, "bare", Bare())
    assert catalogue.explain("bare", {"metrics": {"x": {"mean": 1.0}}}, {}) == []
    assert catalogue.metric("bare", "peak_it_kw").label == "Peak IT (kW)"


def test_a_power_swing_is_explained_with_its_hand_figure_and_the_rule_it_breaks():
    # 256 H100 at 700 W dropping to 30 % of TDP in communication, design PUE 1.2 (the other IT holds):
    # 256 x 700 W x 0.7 x 1.2 = 0.151 MW (tests/engine/test_power_dynamics.py)
    job = {"iteration_seconds": 2.0, "comm_fraction": 0.3, "comm_power_fraction": 0.3}
    words, _ = _explain(
        "power_dynamics",
        campus(),
        {
            "jobs": [job],
            "events": [],
            "duration_seconds": 60.0,
            "search": False,
            "requirements": {"max_swing_mw": 0.1},
        },
    )
    text = " ".join(words)
    assert "swung the grid draw by 0.151 MW" in text
    assert "It breaks 1 of the interconnect's 1 requirements." in text


def test_a_heat_wave_the_plants_carry_is_explained_as_such():
    words, summary = _explain("heat_wave", campus(), {"start_day": 196, "days": 2, "temperature_rise_k": 3.0})
    assert summary["metrics"]["cooling_shortfall_hours"]["mean"] == 0.0
    assert words[0] == "The run warmed 2 days from day 196 of the campus's weather year by 3 K."
    assert "The plants rejected all the heat in every hour; no GPU throttled." in words
