"""POST /api/calculators/battery-sizing/: the hand figure, the campus curve through grid_limit, and 400s
naming the field."""

from __future__ import annotations

import copy

import pytest
from django.urls import reverse

from campus.interchange.importer import import_campus
from tests.interchange.conftest import SMALL_SPEC

URL = "calculator-battery-sizing"


def post(client, body):
    return client.post(reverse(URL), body, format="json")


@pytest.mark.django_db
class TestBatterySizing:
    def test_a_quarter_of_91_mw_for_3_h_needs_about_23_mw_and_68_mwh_at_the_connection(self, viewer_client):
        r = post(viewer_client, {"load_mw": 91, "share_of_load": 0.25, "duration_hours": 3})
        assert r.status_code == 200, r.data
        assert r.data["mw"] == pytest.approx(22.75)
        assert r.data["mwh_at_connection"] == pytest.approx(68.25)
        # 68.25 / (0.8 x sqrt(0.85)) at the catalog's round trip and depth of discharge
        assert r.data["mwh"] == pytest.approx(92.53, abs=0.01)
        assert r.data["curve_basis"] == "power_proportional"
        lost = [p["throughput_lost_fraction"] for p in r.data["curve"]]
        assert lost[0] == pytest.approx(0.25) and lost == sorted(lost, reverse=True)

    def test_shed_mw_and_target_mw_give_the_same_battery(self, viewer_client):
        by_shed = post(viewer_client, {"load_mw": 91, "shed_mw": 22.75}).data
        by_target = post(viewer_client, {"load_mw": 91, "target_mw": 68.25}).data
        assert by_shed["mwh_at_connection"] == pytest.approx(by_target["mwh_at_connection"])

    def test_a_generator_start_and_a_swing(self, viewer_client):
        start = post(
            viewer_client, {"mode": "generator_start", "load_mw": 91, "start_delay_s": 10, "ramp_s": 60}
        )
        assert start.data["mw"] == pytest.approx(91) and start.data["mwh_at_connection"] == pytest.approx(
            91 * 40 / 3600
        )
        swing = post(viewer_client, {"mode": "training_swing", "swing_mw": 40, "limit_mw": 10, "period_s": 2})
        assert swing.status_code == 200, swing.data
        assert swing.data["mw"] == pytest.approx(15.0)

    def test_the_campus_curve_runs_grid_limit_and_the_smallest_battery_loses_nothing(self, viewer_client):
        campus = import_campus(copy.deepcopy(SMALL_SPEC))
        r = post(viewer_client, {"campus": campus.pk, "share_of_load": 0.25, "duration_hours": 1})
        assert r.status_code == 200, r.data
        assert r.data["curve_basis"] == "campus"
        at = {p["scale"]: p["throughput_lost_fraction"] for p in r.data["curve"]}
        assert at[0.0] > 0
        assert at[1.0] == pytest.approx(0.0, abs=1e-9)
        lost = [p["throughput_lost_fraction"] for p in r.data["curve"]]
        assert all(b <= a + 1e-9 for a, b in zip(lost, lost[1:], strict=False))

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({}, "load_mw"),
            ({"load_mw": 91, "share_of_load": 0.2, "shed_mw": 3}, "shed_mw"),
            ({"mode": "training_swing", "swing_mw": 40}, "limit_mw"),
            ({"load_mw": 91, "round_trip_efficiency": 0}, "round_trip_efficiency"),
            ({"load_mw": 91, "volts": 3}, "volts"),
        ],
    )
    def test_bad_input_is_a_400_naming_the_field(self, viewer_client, body, field):
        r = post(viewer_client, body)
        assert r.status_code == 400
        assert field in r.data
