"""The dashboard's server side: the sign-in page names the demo account only while it has its published
password, and the inventory's pages answer for any id (a device of another design is said on the page, not
a whole-page 404)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests import factories as f


@pytest.mark.django_db
def test_the_sign_in_page_names_the_demo_account_only_while_its_password_is_the_published_one(client):
    assert "demo-hint" not in client.get("/login/").content.decode()
    call_command("ensure_demo_user", verbosity=0)
    page = client.get("/login/").content.decode()
    assert 'data-testid="demo-hint"' in page and "demo-planner" in page
    user = get_user_model().objects.get(username="demo")
    user.set_password("something-else-entirely")
    user.save()
    assert "demo-planner" not in client.get("/login/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/campuses/{c}/inventory/",
        "/campuses/{c}/inventory/?table=links&search=x",
        "/campuses/{c}/inventory/?q=R01",
        "/campuses/{c}/inventory/power-devices/999999/",
        "/campuses/{c}/inventory/racks/999999/",
        "/campuses/{c}/capacity/",
    ],
)
def test_the_inventory_pages_answer_with_their_boot_block(client, path):
    campus = f.CampusFactory()
    client.force_login(f.UserFactory())
    response = client.get(path.format(c=campus.pk))
    assert response.status_code == 200
    assert 'id="boot"' in response.content.decode()


@pytest.mark.django_db
def test_a_hall_of_another_design_opens_this_designs_map_with_a_note(client):
    mine = f.DataHallFactory()
    other = f.DataHallFactory()
    client.force_login(f.UserFactory())
    response = client.get(f"/campuses/{mine.building.campus_id}/map/?hall={other.pk}")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-testid="missing-hall"' in page and "showing the whole campus" in page
    # a hall of the same building and name here (a branch keeps its parent's names) is shown instead
    twin = f.DataHallFactory(
        name=other.name, building=f.BuildingFactory(campus=mine.building.campus, name=other.building.name)
    )
    response = client.get(f"/campuses/{mine.building.campus_id}/map/?hall={other.pk}")
    assert f'"hallId": {twin.pk}' in response.content.decode()
