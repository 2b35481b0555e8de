"""The sentences a run's explanation is made of, read off summaries written by hand (no simulation): each
figure a sentence states is worked out here from the summary's means."""

from __future__ import annotations

from simulations.engine.catalogue import Summary
from simulations.engine.kinds import failure_cascade, grid_limit, heat_wave, liquid_cooling
from simulations.engine.params import validate_params


def summary(**means: float) -> Summary:
    return Summary({"metrics": {k: {"mean": v} for k, v in means.items()}, "replicas": 1})


# ---------------------------------------------------------------- failure_cascade: where the time went


def test_the_time_not_spent_training_is_split_into_parts_that_do_not_overlap():
    # A 30-day run (720 h) of one replica: training 603.01 h, lost work 42.79 h, downtime 69.84 h (of which
    # 68.64 h waiting for healthy capacity), checkpoint writing 4.36 h. By hand: 603.01 + 42.79 + 69.84 + 4.36
    # = 720 h, so the time not spent training is 720 - 603.01 = 116.99 h = 4.87 days, made of lost work
    # 42.79 h, restarts 69.84 - 68.64 = 1.2 h, waiting 68.64 h and writing 4.36 h. Waiting is the largest:
    # 68.64 h = 2.86 days, 68.64 / 116.99 = 58.7 %; lost work next: 42.79 h (under
    # 48 h, so said in hours: 42.8 h), 42.79 / 116.99 = 36.6 %.
    ettr = 603.01 / 720.0
    s = summary(
        ettr=ettr,
        interruptions=0.0,
        lost_work_hours=42.79,
        downtime_hours=69.84,
        waiting_for_capacity_hours=68.64,
        checkpoint_overhead_hours=4.36,
    )
    p = validate_params("failure_cascade", {"duration_days": 30})
    sentence = failure_cascade.explain(s, p)[-1]
    assert sentence == (
        "Most of the 4.87 days not spent training went to waiting for healthy capacity (2.86 days, 58.7 %), "
        "then lost work since the last checkpoint (42.8 h, 36.6 %)."
    )


def test_restarts_are_the_downtime_less_the_waiting():
    # No waiting: the downtime is all restarts. 10 h restarts of 12 h lost (2 h lost work): 83.3 %.
    s = summary(ettr=0.9, lost_work_hours=2.0, downtime_hours=10.0, waiting_for_capacity_hours=0.0)
    p = validate_params("failure_cascade", {"duration_days": 5})
    assert failure_cascade.explain(s, p)[-1] == (
        "Most of the 12 h not spent training went to restarts and recovery (10 h, 83.3 %), then lost work "
        "since the last checkpoint (2 h, 16.7 %)."
    )


# ---------------------------------------------------------------- liquid_cooling: how many units were lost


def test_two_cdus_lost_are_said_as_two():
    p = validate_params(
        "liquid_cooling",
        {
            "events": [
                {"kind": "cdu_loss", "target_id": 11},
                {"kind": "cdu_loss", "target_id": 12, "at_minutes": 9},
            ]
        },
    )
    first = liquid_cooling.explain(summary(min_cooling_fraction=1.0), p)
    assert first[0] == "The run simulated the loss of two CDUs, starting 5 min in."
    assert first[1].startswith("The live CDUs of the lost units' redundancy groups (N+1)")


def test_one_cdu_lost_twice_is_still_a_cdu():
    p = validate_params(
        "liquid_cooling", {"events": [{"target_id": 11}, {"target_id": 11, "at_minutes": 60}]}
    )
    assert liquid_cooling.explain(summary(), p)[0] == (
        "The run simulated the loss of a CDU, starting 5 min in."
    )


# ---------------------------------------------------------------- grid_limit: which battery carried it


def test_a_ride_through_carried_by_the_battery_storage_names_it():
    # 4 MWh short; the campus battery storage gave 3.5 MWh (3.5 / 4 = 87.5 %) and the UPS batteries were
    # never drawn (lowest charge = the charge at the start, 1.0).
    p = validate_params("grid_limit", {"policy": "ride_through"})
    s = summary(
        shortfall_mwh=4.0,
        max_shortfall_kw=2000.0,
        throughput_lost_fraction=0.0,
        bess_discharge_mwh=3.5,
        bess_min_fraction=0.3,
        battery_min_fraction=1.0,
    )
    text = grid_limit.explain(s, p)
    assert text[0] == (
        "The demand exceeded the grid limit by up to 2 MW (4 MWh in all); the campus answered by riding "
        "through on the campus battery storage (3.5 MWh, 87.5 % of the shortfall), then capping."
    )
    assert "UPS" not in " ".join(text)
    assert "The campus battery storage fell to 30 % of its charge." in text


def test_a_ride_through_on_both_batteries_names_both_in_their_order():
    p = validate_params("grid_limit", {"policy": "ride_through"})
    s = summary(
        shortfall_mwh=4.0,
        max_shortfall_kw=2000.0,
        bess_discharge_mwh=3.0,
        bess_min_fraction=0.0,
        battery_min_fraction=0.5,
    )
    text = grid_limit.explain(s, p)
    assert text[0].endswith(
        "riding through on the campus battery storage (3 MWh, 75 % of the shortfall) and then the UPS "
        "batteries, then capping."
    )
    assert "The UPS batteries fell to 50 % of their charge." in text


def test_a_ride_through_without_battery_storage_is_on_the_ups():
    p = validate_params("grid_limit", {"policy": "ride_through"})
    s = summary(shortfall_mwh=1.0, max_shortfall_kw=500.0, battery_min_fraction=0.2)
    assert grid_limit.explain(s, p)[0].endswith("riding through on the UPS batteries, then capping.")


# ---------------------------------------------------------------- heat_wave: throttled or shut down


def test_a_heat_wave_shut_down_every_short_hour_says_so():
    # 5 days = 120 h, every hour short of cooling and shut down: the job did no work (100 % lost).
    p = validate_params("heat_wave", {})
    s = summary(cooling_shortfall_hours=120.0, shutdown_hours=120.0, throughput_lost_fraction=1.0)
    sentence = heat_wave.explain(s, p)[1]
    assert "throttled" not in sentence
    assert sentence == (
        "The plants could not reject all the heat for 120 hours, so the GPUs shut down in every one of them "
        "(even their minimum power cap left heat unrejected); the job lost 100 % of its throughput over the "
        "wave."
    )


def test_a_heat_wave_with_some_hours_shut_down_says_both():
    p = validate_params("heat_wave", {})
    s = summary(cooling_shortfall_hours=30.0, shutdown_hours=6.0, throughput_lost_fraction=0.08)
    assert heat_wave.explain(s, p)[1] == (
        "The plants could not reject all the heat for 30 hours, so GPUs throttled, and for 6 of those hours "
        "shut down; the job lost 8 % of its throughput over the wave."
    )


def test_a_heat_wave_that_only_throttled_says_throttled():
    p = validate_params("heat_wave", {})
    s = summary(cooling_shortfall_hours=30.0, shutdown_hours=0.0, throughput_lost_fraction=0.02)
    assert "so GPUs throttled; the job lost 2 %" in heat_wave.explain(s, p)[1]


def test_a_stored_run_with_an_event_past_its_end_still_explains_itself():
    # Runs stored before events had to start within the run (a 12 h grid limit keeping the default event at
    # 14 h) are read back for their explanation: the window check is for new runs only.
    from simulations.engine import catalogue

    params = {"duration_hours": 12}
    summary_ = {"metrics": {"shortfall_mwh": {"mean": 0.0}}}
    assert catalogue.explain("grid_limit", summary_, params) == [
        "The campus's demand stayed within the grid limit throughout; nothing had to give."
    ]
