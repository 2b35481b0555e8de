"""Parameter validation: defaults, strictness and error paths that name the field."""

from __future__ import annotations

import pytest

from simulations.engine.params import (
    KINDS,
    ParamsError,
    default_params,
    param_label,
    params_json_schema,
    validate_params,
)


@pytest.mark.parametrize("kind", KINDS)
def test_an_empty_object_is_valid_for_every_kind(kind):
    assert validate_params(kind, {}).model_dump(mode="json") == default_params(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_defaults_validate_back_to_themselves(kind):
    data = default_params(kind)
    assert validate_params(kind, data).model_dump(mode="json") == data


@pytest.mark.parametrize("kind", KINDS)
def test_unknown_keys_are_rejected_by_name(kind):
    with pytest.raises(ParamsError) as exc:
        validate_params(kind, {"duration_dayz": 3})
    assert exc.value.errors == [{"field": "duration_dayz", "message": "Extra inputs are not permitted"}]


def test_nested_errors_carry_dotted_and_bracketed_paths():
    with pytest.raises(ParamsError) as exc:
        validate_params("grid_limit", {"events": [{}, {"cut_fraction": 2}], "job": {"mfu": 0}})
    fields = {e["field"] for e in exc.value.errors}
    assert fields == {"events[1].cut_fraction", "job.mfu"}


def test_a_cap_rule_needs_exactly_one_of_fraction_or_watts():
    with pytest.raises(ParamsError) as exc:
        validate_params(
            "power_capping", {"schedule": [{"start_hours": 2, "caps": [{"cap_fraction": 0.7, "cap_w": 500}]}]}
        )
    assert exc.value.errors[0]["field"] == "schedule[0].caps[0]"
    assert "exactly one" in exc.value.errors[0]["message"]


def test_checkpoint_interval_takes_a_number_or_optimal_in_one_message():
    assert (
        validate_params("failure_cascade", {"checkpoint_interval_minutes": 90}).checkpoint_interval_minutes
        == 90
    )
    with pytest.raises(ParamsError) as exc:
        validate_params("failure_cascade", {"checkpoint_interval_minutes": "often"})
    assert [e["field"] for e in exc.value.errors] == ["checkpoint_interval_minutes"]
    with pytest.raises(ParamsError):
        validate_params("failure_cascade", {"checkpoint_interval_minutes": 0})


def test_override_tables_validate_each_value_under_its_key():
    with pytest.raises(ParamsError) as exc:
        validate_params(
            "failure_cascade", {"rate_overrides": {"gpu": -5}, "repair_hours_overrides": {"pdu": "x"}}
        )
    assert {e["field"] for e in exc.value.errors} == {"rate_overrides.gpu", "repair_hours_overrides.pdu"}


def test_recovery_mode_is_one_of_three():
    with pytest.raises(ParamsError) as exc:
        validate_params("failure_cascade", {"recovery": "pray"})
    assert exc.value.errors[0]["field"] == "recovery"


def test_an_unknown_kind_is_a_params_error():
    with pytest.raises(ParamsError) as exc:
        validate_params("meteor_strike", {})
    assert exc.value.errors[0]["field"] == "kind"


@pytest.mark.parametrize("kind", KINDS)
def test_json_schema_lists_every_default_parameter(kind):
    schema = params_json_schema(kind)
    assert set(schema["properties"]) == set(default_params(kind))
    assert schema.get("additionalProperties") is False


@pytest.mark.parametrize(
    ("kind", "path", "label"),
    [
        ("power_capping", "caps[0].cap_fraction", "Caps 1 · Cap (fraction of TDP)"),
        ("power_capping", "schedule[0].caps[1].cap_w", "Cap schedule 1 · Caps 2 · Cap (W per GPU)"),
        ("liquid_cooling", "events[1].target_id", "Cooling events 2 · Unit or plant"),
        # a field of one option of the tagged union of events
        ("liquid_cooling", "events[0].supply_rise_k", "Cooling events 1 · Supply temperature rise (K)"),
        ("liquid_cooling", "job.checkpoint_interval_minutes", "Training job · Checkpoint interval (min)"),
        ("heat_wave", "start_day", "First day (day of the year)"),
        ("heat_wave", "no_such_field", None),
    ],
)
def test_a_parameter_path_is_labelled_by_the_titles_its_kind_declares(kind, path, label):
    assert param_label(kind, path) == label


@pytest.mark.parametrize(
    "kind, params, field",
    [
        ("training_step", {"cp": True}, "cp"),  # read as cp = 1, silently
        ("training_step", {"tp_values": [8, True]}, "tp_values[1]"),
        ("grid_limit", {"duration_hours": True}, "duration_hours"),
        ("grid_limit", {"events": [{"kind": "cap", "start_hours": False}]}, "events[0].start_hours"),
        ("failure_cascade", {"server_pool": {"warm_standbys": True}}, "server_pool.warm_standbys"),
        ("failure_cascade", {"rate_overrides": {"gpu": True}}, "rate_overrides.gpu"),
        ("failure_cascade", {"checkpoint_interval_minutes": True}, "checkpoint_interval_minutes"),
    ],
)
def test_a_boolean_given_for_a_number_is_refused_by_its_path(kind, params, field):
    """JSON true/false are literals, not numbers (RFC 8259 §3), as every REST write has it."""
    with pytest.raises(ParamsError) as exc:
        validate_params(kind, params)
    assert [e["field"] for e in exc.value.errors] == [field]
    assert "not a boolean" in exc.value.errors[0]["message"]


def test_a_boolean_field_still_takes_a_boolean():
    p = validate_params(
        "failure_cascade", {"include_infrastructure": False, "failures_during_recovery": False}
    )
    assert p.include_infrastructure is False and p.failures_during_recovery is False
