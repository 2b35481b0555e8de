import pytest

from simulations.models import Scenario

from .campus_builder import build_small_campus


@pytest.fixture
def campus(db):
    return build_small_campus()


@pytest.fixture
def scenario(campus, planner):
    # A short failure_cascade: a few days so each replica sees some failures and still runs in milliseconds.
    return Scenario.objects.create(
        campus=campus, kind="failure_cascade", name="Failures", params={"duration_days": 5}, owner=planner
    )
