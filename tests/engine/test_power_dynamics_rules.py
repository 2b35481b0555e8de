"""power_dynamics against the large-load rule sets: the limits come from the chosen set; a job crash's step
is told apart from the iteration swing.

By hand (tests.engine.builders: 320 racks x 4 nodes x 8 H100 = 10,240 GPUs at 700 W, PUE 1.2): the iteration
swing is 10,240 x 700 W x (1 - 0.3) x 1.2 = 6.021 MW (communication at 30 % of TDP); a crash drops the GPUs
to idle (12 % of TDP): 10,240 x 700 W x (1 - 0.12) x 1.2 = 7.569 MW.
"""

from __future__ import annotations

import pytest

from campus.analysis.grid_rules import RULE_SETS
from simulations.engine.kinds import power_dynamics
from simulations.engine.params import ParamsError, validate_params
from simulations.engine.runner import run_replica
from simulations.engine.words import Summary
from tests.engine.builders import campus


def _run(**params):
    base = {"duration_seconds": 2400, "search": False, "resolution_ms": 50}
    return run_replica("power_dynamics", campus(racks=320), {**base, **params}, seed=1)


def test_the_iteration_swing_and_the_crash_step_by_hand():
    r = _run()
    assert r.metrics["iteration_swing_mw"] == pytest.approx(10_240 * 700 * 0.7 * 1.2 / 1e6, rel=1e-6)
    assert r.metrics["swing_mw"] == pytest.approx(10_240 * 700 * 0.88 * 1.2 / 1e6, rel=1e-6)


def test_the_words_tell_the_crash_step_from_the_iteration_swing():
    r = _run()
    p = validate_params("power_dynamics", {})
    s = _summary(r.metrics)
    words = " ".join(power_dynamics.explain(s, p))
    assert "Steady training swung the grid draw by 6.02 MW within an iteration" in words
    assert "a job crash or start is a step, not an iteration swing" in words


def _summary(metrics):
    return Summary({"metrics": {k: {"mean": v} for k, v in metrics.items()}})


def test_the_default_limits_are_the_rule_sets_and_carry_no_75_mw_swing_limit():
    p = validate_params("power_dynamics", {})
    rules = RULE_SETS[p.rule_set]
    assert p.requirements.max_swing_mw is None
    assert p.requirements.band_hz == rules.band_hz
    assert p.requirements.max_ramp_mw_per_s == rules.max_ramp_mw_per_s


def test_requirements_given_alone_are_a_custom_set_and_a_stored_run_reads_back():
    p = validate_params("power_dynamics", {"requirements": {"max_swing_mw": 5.0}})
    assert p.rule_set == "custom" and p.requirements.max_swing_mw == 5.0
    stored = validate_params("power_dynamics", {}).model_dump(mode="json")
    assert validate_params("power_dynamics", stored, stored=True).rule_set == "utility-practice"
    high = validate_params("power_dynamics", {"rule_set": "utility-practice-high-band"})
    assert high.requirements.band_hz == (3.0, 30.0)
    # a form sends the default set's requirements untouched beside the set picked: the set's own apply
    form = {**stored, "rule_set": "utility-practice-high-band"}
    assert validate_params("power_dynamics", form).requirements.band_hz == (3.0, 30.0)


def test_requirements_that_differ_from_a_named_set_are_refused_naming_the_field():
    with pytest.raises(ParamsError) as err:
        validate_params(
            "power_dynamics", {"rule_set": "utility-practice", "requirements": {"max_swing_mw": 5}}
        )
    assert err.value.errors[0]["field"] == "requirements"


def test_on_site_generation_burns_fuel_by_the_same_model_as_grid_limit():
    # 4 MW of turbines carrying the load above 10 MW: fuel at the mean load x is (0.75 x + 0.25) of full-load
    # fuel, 9.5 MMBtu/MWh at full load, 53.06 kg CO2/MMBtu (docs/grid.md)
    gen = {"rating_mw": 4.0, "ramp_mw_per_s": 1.0, "grid_import_mw": 10.0}
    m = _run(duration_seconds=600, generation=gen, events=[]).metrics
    x = m["generation_mwh"] / (4.0 * 600 / 3600)
    fuel = 4.0 * 600 / 3600 * 9.5 * (0.75 * x + 0.25)
    assert m["generation_fuel_mmbtu"] == pytest.approx(fuel)
    assert m["generation_emissions_tco2"] == pytest.approx(fuel * 0.05306)
    assert m["generation_fuel_cost_usd"] == pytest.approx((0.75 * x + 0.25) * 4.0 * 600 / 3600 * 35.0)
