"""Scenarios and schedules pass the same declarative API tests as every inventory model: roles, bulk writes,
brief mode, conditional GET, filters and 400s naming the field."""

from simulations.models import Scenario, Schedule
from tests import factories as f
from tests.api.base import APIViewTests


class TestScenarios(APIViewTests):
    model = Scenario
    basename = "scenario"
    factory = f.ScenarioFactory
    update_data = {"name": "Renamed", "description": "grid cut at noon"}
    bulk_update_data = {"description": "reviewed"}
    bad_data = {"kind": "no-such-kind"}
    filter_params = {"campus": "campus_id", "kind": "kind"}
    has_history = False

    def create_data(self):
        campus = f.CampusFactory()
        return [
            {"campus": campus.pk, "kind": "grid_limit", "name": f"Grid {i}", "params": {}} for i in range(3)
        ]


class TestSchedules(APIViewTests):
    model = Schedule
    basename = "schedule"
    factory = f.ScheduleFactory
    update_data = {"crontab": "0 3 * * *", "replicas": 7}
    bulk_update_data = {"enabled": False}
    bad_data = {"crontab": "0 2 * *"}
    filter_params = {"scenario": "scenario_id", "campus": "scenario.campus_id", "enabled": "enabled"}
    has_history = False
    write_role = "admin"

    def create_data(self):
        scenario = f.ScenarioFactory()
        return [
            {"scenario": scenario.pk, "name": f"Nightly {i}", "crontab": "0 2 * * *", "replicas": 5}
            for i in range(3)
        ]
