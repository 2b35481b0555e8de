"""The scenarios page lists the demand-response events the campus's VEN answered: what each asked, the
answer and the predicted impact, as ``/api/demand-response-events/`` gives them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=False)]


@pytest.fixture(scope="module")
def dr_events(demo, django_db_blocker):
    """Two answered events on the demo campus, written for the module (outside each test's transaction, as the
    live server reads them)."""
    from simulations.models import DemandResponseEvent

    campus_id = demo["campus_id"]
    common = dict(
        campus_id=campus_id,
        vtn_url="http://vtn.example/OpenADR2/Simple/2.0b",
        ven_id="ven-1",
        signal_name="LOAD_DISPATCH",
        starts_at=datetime(2026, 7, 1, 14, tzinfo=UTC),
        duration_s=3 * 3600.0,
        notice_minutes=60.0,
    )
    with django_db_blocker.unblock():
        DemandResponseEvent.objects.create(
            **common,
            event_id="ev-shed",
            signal_type="delta",
            params={"events": [{"shed_mw": 2.5}]},
            opt="optIn",
            reason="the campus holds the level throughout",
            impact={"throughput_lost_fraction": 0.031, "flex_cost_usd": 1234.0},
        )
        DemandResponseEvent.objects.create(
            **common,
            event_id="ev-zero",
            signal_type="setpoint",
            params={"events": [{"target_mw": 0.0}]},
            opt="optOut",
            reason="the campus would draw 3.00 MWh above the level",
            impact={},
        )
    yield campus_id
    with django_db_blocker.unblock():
        DemandResponseEvent.objects.filter(campus_id=campus_id).delete()


def test_the_scenarios_page_lists_the_events_and_the_answers(dr_events, viewer_page, live_url):
    page, watch = viewer_page
    page.goto(f"{live_url}/campuses/{dr_events}/scenarios/")
    table = page.locator("[data-testid=dr-event-table]")
    table.wait_for()
    shed = table.locator("tr[data-dr-event='ev-shed']").inner_text()
    assert "shed 2.5 MW" in shed and "opted in" in shed and "3.1" in shed
    zero = table.locator("tr[data-dr-event='ev-zero']").inner_text()
    assert "stay under 0.0 MW" in zero and "opted out" in zero
    watch.check()
