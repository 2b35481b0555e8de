"""Every id filter of every list endpoint (``?campus=``, ``?hall=``, ... the filter set's model-choice filters)
given an id one above the largest of its model is a 400 naming the parameter and the id, not django-filter's
generic "Select a valid choice" nor an empty page; an existing id whose rows are filtered away is an empty page.

Truth from outside the code: the ids the fixture creates (an id above the largest cannot exist).
"""

from __future__ import annotations

import pytest

from campus.api.urls import REGISTRY
from campus.models import Campus, Rack
from tests.factories import CampusFactory
from twin.api.filters import BoundedModelChoiceFilter

pytestmark = pytest.mark.django_db


def _choice_filters():
    for prefix, viewset, _ in REGISTRY:
        filterset_class = getattr(viewset, "filterset_class", None)
        if filterset_class is None:
            continue
        for name, filter_ in filterset_class.base_filters.items():
            if isinstance(filter_, BoundedModelChoiceFilter):
                yield prefix, name, filter_.queryset.model if filter_.queryset is not None else None


CASES = [case for case in _choice_filters() if case[2] is not None]


def test_every_inventory_list_has_id_filters_to_check():
    assert len(CASES) >= 20, CASES
    assert ("racks", "campus", Campus) in CASES


@pytest.mark.parametrize(("prefix", "name", "model"), CASES, ids=[f"{p}?{n}" for p, n, _ in CASES])
def test_an_id_naming_nothing_is_a_400_naming_it(one_of_each, viewer_client, prefix, name, model):
    missing = max(model._default_manager.values_list("pk", flat=True), default=0) + 1000
    response = viewer_client.get(f"/api/{prefix}/?{name}={missing}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert list(body) == [name]
    assert str(missing) in body[name][0]


def test_an_existing_campus_filtered_to_nothing_is_an_empty_page(one_of_each, viewer_client):
    campus = Rack.objects.first().campus
    response = viewer_client.get(f"/api/racks/?campus={campus.pk}&name=no-such-rack")
    assert response.status_code == 200, response.content
    assert response.json()["count"] == 0
    empty = CampusFactory(name="empty campus")
    response = viewer_client.get(f"/api/racks/?campus={empty.pk}")
    assert response.status_code == 200 and response.json()["count"] == 0


def test_a_missing_campus_beside_an_existing_hall_is_named_alone(one_of_each, viewer_client):
    rack = Rack.objects.first()
    missing = max(Campus.objects.values_list("pk", flat=True)) + 1000
    response = viewer_client.get(f"/api/racks/?campus={missing}&hall={rack.hall_id}")
    assert response.status_code == 400
    assert list(response.json()) == ["campus"]


def test_a_detail_with_a_filter_still_checks_first(one_of_each, viewer_client):
    rack = Rack.objects.first()
    missing = max(Campus.objects.values_list("pk", flat=True)) + 1000
    response = viewer_client.get(f"/api/racks/{rack.pk}/?campus={missing}")
    assert response.status_code in (400, 404)
    assert response.status_code != 500
