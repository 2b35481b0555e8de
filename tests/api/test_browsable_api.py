"""The browsable API (a browser's ``Accept: text/html``) answers every registered endpoint's list and detail
pages, with their forms: a related field's choices are keyed by id (REST framework keyed them by the brief
object, a dict, and every page of a model with a related field answered 500)."""

import re

import pytest

from campus.api.urls import REGISTRY as CAMPUS_REGISTRY
from campus.models import DataHall, Rack
from simulations.api.urls import REGISTRY as SIMULATION_REGISTRY

REGISTRY = [(prefix, viewset) for prefix, viewset, _ in (*CAMPUS_REGISTRY, *SIMULATION_REGISTRY)]


@pytest.fixture
def browser(admin_user, client):
    client.force_login(admin_user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize(("prefix", "viewset"), REGISTRY)
def test_every_list_and_detail_page_renders_in_a_browser(one_of_each, browser, prefix, viewset):
    pages = [f"/api/{prefix}/"]
    first = viewset.queryset.model.objects.values_list("pk", flat=True).first()
    if first is not None:
        pages.append(f"/api/{prefix}/{first}/")
    for page in pages:
        response = browser.get(page, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, (page, response.content[:300])
        assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
def test_a_related_fields_choices_are_the_ids_a_write_sends(one_of_each, browser):
    rack = Rack.objects.first()
    html = browser.get(f"/api/racks/{rack.pk}/", HTTP_ACCEPT="text/html").content.decode()
    # the hall select of the rack's form offers every hall by its id, named
    select = re.search(r'<select[^>]*name="hall"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None
    offered = dict(re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', select.group(1)))
    assert offered == {str(hall.pk): str(hall) for hall in DataHall.objects.all()}
