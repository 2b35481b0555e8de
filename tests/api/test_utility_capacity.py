"""A utility feed's ``capacity_mw`` is greater than 0 on every write path: 0 was stored and read as "not
rated", so the feed dropped out of the utility headroom, the failover headroom and placement without a word
(the campus grid's 0 was already refused). The API (one object and bulk), the admin's form (the models'
``clean``) and the spec import refuse it, naming the field, and write nothing.
"""

from __future__ import annotations

import copy

import pytest

from campus.interchange.rules import UTILITY_CAPACITY_MESSAGE
from campus.interchange.validation import CatalogIndex, check_spec
from campus.models import UtilityFeed
from tests.factories import CampusFactory, UtilityFeedFactory
from tests.interchange.conftest import SMALL_SPEC

pytestmark = pytest.mark.django_db


def test_a_patch_to_zero_is_a_400_naming_capacity_mw_and_keeps_the_capacity(planner_client):
    feed = UtilityFeedFactory(capacity_mw=50.0)
    response = planner_client.patch(f"/api/utility-feeds/{feed.pk}/", {"capacity_mw": 0}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"capacity_mw": [UTILITY_CAPACITY_MESSAGE]}
    assert UtilityFeed.objects.get(pk=feed.pk).capacity_mw == 50.0
    # a negative capacity gets the same message (it read "greater than or equal to 0", which 0 is not)
    response = planner_client.patch(f"/api/utility-feeds/{feed.pk}/", {"capacity_mw": -1}, format="json")
    assert response.status_code == 400
    assert response.json() == {"capacity_mw": [UTILITY_CAPACITY_MESSAGE]}
    response = planner_client.patch(f"/api/utility-feeds/{feed.pk}/", {"capacity_mw": 0.001}, format="json")
    assert response.status_code == 200, response.content


def test_a_bulk_create_with_one_zero_feed_writes_nothing(planner_client):
    campus = CampusFactory()
    body = [
        {"campus": campus.pk, "name": "U-1", "capacity_mw": 20.0},
        {"campus": campus.pk, "name": "U-2", "capacity_mw": 0.0},
    ]
    response = planner_client.post("/api/utility-feeds/", body, format="json")
    assert response.status_code == 400, response.content
    assert "must be greater than 0 MW" in str(response.json())
    assert not UtilityFeed.objects.filter(campus=campus).exists()


def test_the_model_clean_used_by_the_admin_refuses_it():
    from django.core.exceptions import ValidationError

    feed = UtilityFeedFactory()
    feed.capacity_mw = 0.0
    with pytest.raises(ValidationError) as caught:
        feed.full_clean()
    assert caught.value.message_dict == {"capacity_mw": [UTILITY_CAPACITY_MESSAGE]}


def test_the_spec_import_refuses_it_with_the_apis_message():
    catalog = CatalogIndex(
        node_models={"hgx-h100-8": (1, 8)}, switch_models={"quantum-2-qm9700": 1}, media={"sr": (1, 50.0)}
    )
    spec = copy.deepcopy(SMALL_SPEC)
    assert check_spec(copy.deepcopy(spec), lambda: catalog) == []
    spec["utility_feeds"][1]["capacity_mw"] = 0
    assert check_spec(spec, lambda: catalog) == [
        {"path": "utility_feeds[1].capacity_mw", "message": UTILITY_CAPACITY_MESSAGE}
    ]
