import struct

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from simulations.choices import ScenarioKind
from simulations.engine.params import KINDS
from simulations.models import (
    Scenario,
    Schedule,
    crontab_errors,
    pack_floats,
    threshold_errors,
    unpack_floats,
)


def test_scenario_kind_choices_match_the_engine_kinds():
    assert tuple(ScenarioKind.values) == tuple(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_empty_params_are_valid_for_every_kind(campus, kind):
    Scenario(campus=campus, kind=kind, name=kind, params={}).full_clean()


def test_scenario_clean_names_the_bad_parameter_path(campus):
    scenario = Scenario(
        campus=campus, kind="power_capping", name="caps", params={"caps": [{"cap_fraction": 7}]}
    )
    with pytest.raises(ValidationError) as info:
        scenario.full_clean()
    (message,) = info.value.message_dict["params"]
    assert message.startswith("caps[0].cap_fraction:")


def test_unknown_parameter_is_rejected_not_ignored(campus):
    scenario = Scenario(campus=campus, kind="failure_cascade", name="typo", params={"duration_dayz": 3})
    with pytest.raises(ValidationError) as info:
        scenario.full_clean()
    assert "duration_dayz" in info.value.message_dict["params"][0]


def test_scenario_names_are_unique_per_campus(campus):
    Scenario.objects.create(campus=campus, kind="grid_limit", name="same")
    with pytest.raises(IntegrityError):
        Scenario.objects.create(campus=campus, kind="power_capping", name="same")


def test_float32_little_endian_round_trip_keeps_values_to_float32_precision():
    values = np.linspace(0, 720, 10_001)
    data = pack_floats(values)
    assert len(data) == 4 * values.size
    # Little-endian float32 whatever the machine: readable by any client from the raw bytes.
    assert struct.unpack("<f", data[4:8])[0] == pytest.approx(values[1], rel=1e-6)
    np.testing.assert_allclose(unpack_floats(data), values, rtol=1e-6)


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ([{"metric": "ettr", "op": "~", "value": 1}], "thresholds[0].op"),
        ([{"metric": "ettr", "op": "<", "value": "high"}], "thresholds[0].value"),
        ([{"metric": "ettr", "op": "<", "value": 1}, {"op": "<", "value": 1}], "thresholds[1].metric"),
        ([{"metric": "ettr", "op": "<", "value": 1, "stat": "median"}], "thresholds[0].stat"),
        ({"metric": "ettr"}, "thresholds"),
    ],
)
def test_threshold_errors_name_the_rule_and_field(rules, field):
    assert field in threshold_errors(rules)


def test_valid_threshold_rules_have_no_errors():
    assert threshold_errors([{"metric": "ettr", "op": "<", "value": 0.9, "stat": "p5"}]) == {}


def test_crontab_needs_five_valid_fields():
    assert crontab_errors("0 2 * * *") == []
    assert crontab_errors("0 2 * *")
    assert crontab_errors("99 2 * * *")


def test_schedule_needs_exactly_one_of_crontab_or_interval(scenario):
    both = Schedule(scenario=scenario, name="both", crontab="0 2 * * *", interval_seconds=3600)
    with pytest.raises(ValidationError) as info:
        both.full_clean()
    assert "crontab" in info.value.message_dict
    neither = Schedule(scenario=scenario, name="neither")
    with pytest.raises(ValidationError):
        neither.full_clean()
    with pytest.raises(IntegrityError):
        Schedule.objects.create(scenario=scenario, name="db-too")


def test_the_database_choices_derive_from_the_engine_enums_and_the_registry():
    from simulations.choices import RunStatus, ThresholdOp
    from simulations.engine import contract, registry
    from simulations.engine.aggregate import OPS

    assert ScenarioKind.choices == [(k.value, m.LABEL) for k, m in registry.MODELS.items()]
    assert ScenarioKind.choices[1] == ("grid_limit", "Grid limit / demand response")
    assert RunStatus.values == [s.value for s in contract.RunStatus]
    assert RunStatus.CANCELLED.label == "Cancelled"
    assert ThresholdOp.values == [str(op) for op in OPS] == ["<", "<=", ">", ">=", "==", "!="]
