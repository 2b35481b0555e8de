"""A switch that links depend on is refused deletion like a power or cooling supplier: deleting it took its
links with it and cut racks off the fabric without a word. The links are deleted (or moved) first."""

from __future__ import annotations

import pytest

from campus.models import Link, Switch
from tests.factories import LinkFactory, SwitchFactory

pytestmark = pytest.mark.django_db


def test_a_switch_with_links_is_a_409_naming_them_and_stays(planner_client):
    leaf = SwitchFactory(name="LEAF-1")
    spine = SwitchFactory(campus=leaf.campus, name="SPINE-1", model=leaf.model)
    LinkFactory(campus=leaf.campus, b_switch=leaf)  # a rack up to the leaf
    LinkFactory(campus=leaf.campus, a_rack=None, a_switch=leaf, b_switch=spine)  # the leaf up to the spine
    response = planner_client.delete(f"/api/switches/{leaf.pk}/")
    assert response.status_code == 409, response.content
    assert response.json()["detail"].startswith(
        'Cannot delete "LEAF-1": still referenced by 2 object(s) (2 link(s))'
    )
    assert Switch.objects.filter(pk=leaf.pk).exists() and Link.objects.count() == 2
    # the spine is depended on by the one link into it
    assert "1 link(s)" in planner_client.delete(f"/api/switches/{spine.pk}/").json()["detail"]
    Link.objects.all().delete()
    assert planner_client.delete(f"/api/switches/{leaf.pk}/").status_code == 204


def test_a_switch_without_links_is_deleted():
    from twin.api.exceptions import dependents_problem

    assert dependents_problem(SwitchFactory()) is None
