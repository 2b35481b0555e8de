"""``manage.py load_demo_measurements``: a day of emulated measurements for the demo campus, shown by the
measured endpoint with the one PDU whose meter reads 50 % high, once."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from campus.interchange.demo import load_demo_campus
from campus.models import MeasurementRollup

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_analytics")]


def test_the_demo_campus_gets_a_day_of_measurements_once_and_shows_its_pdu_alarm(viewer_client, settings):
    settings.TWIN_PROMETHEUS_URL = ""
    campus, _ = load_demo_campus()
    call_command("load_demo_measurements")
    held = MeasurementRollup.objects.filter(campus=campus).count()
    assert held > 0
    call_command("load_demo_measurements")
    assert MeasurementRollup.objects.filter(campus=campus).count() == held
    body = viewer_client.get(reverse("campus-measured", kwargs={"pk": campus.pk})).json()
    pdus = [o for o in body["objects"] if o["object_kind"] == "pdu"]
    over = [o for o in pdus if o["alarm"] == "over"]
    assert len(over) == 1 and over[0]["deviation"] > 0.1
    racks = [o for o in body["objects"] if o["object_kind"] == "rack"]
    # racks near 80 % of their full-TDP model: an `under` alarm, provisioned power never drawn
    assert racks and all(o["alarm"] == "under" for o in racks)
    # the plants draw 25 % above their model at the emulated heat and weather (the demo's hidden truth)
    plants = [o for o in body["objects"] if o["object_kind"] == "chiller" and o["metric"] == "power_kw"]
    assert plants and all(o["basis"] == "paired" and o["alarm"] == "over" for o in plants)
    assert all(0.15 < o["deviation"] < 0.35 for o in plants)
    (outdoor,) = [o for o in body["objects"] if o["metric"] == "dry_bulb_c"]
    assert outdoor["alarm"] is None  # the emulated day follows the campus's weather year
