"""The admin judges the state a save or deletion leaves with the API's rules (issue: an inventory the API
cannot corrupt). A GB200 NVL72 rack holds 18 compute trays of 4 GPUs (NVIDIA GB200 NVL72 datasheet, 2024);
each admin form used to be checked alone, so a tray taken out of a full rack (deleted, or turned into
another model) left 17 and the admin accepted it."""

import copy

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.forms.models import model_to_dict
from django.test import Client

from campus.interchange.importer import import_campus
from campus.models import Campus, CoolingUnit, Node, NodeModel, PowerDevice, PowerFeed, Rack
from tests.interchange.conftest import SMALL_SPEC


@pytest.fixture
def full_rack(db):
    campus = import_campus(copy.deepcopy(SMALL_SPEC))
    rack = Rack.objects.get(campus=campus, name="R01-01")
    rack.nodes.all().delete()
    # 18 trays at full TDP: 18 x (4 x 1,200 W + 2,530 W) = 131.94 kW; the rack is designed for them.
    Rack.objects.filter(pk=rack.pk).update(design_kw=140.0)
    rack.refresh_from_db()
    tray = NodeModel.objects.get(slug="gb200-nvl72-tray")
    Node.objects.bulk_create(Node(rack=rack, node_model=tray, name=f"T{i:02d}") for i in range(18))
    return rack


@pytest.fixture
def staff(db) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", "pw-root"))
    return client


def node_form(rf, node, **changes):
    request = rf.post("/admin/")
    request.user = get_user_model().objects.create_superuser("formuser", "f@example.org", "pw")
    form_class = admin.site._registry[Node].get_form(request, node)
    data = {**model_to_dict(node), **changes}
    data = {k: v for k, v in data.items() if v is not None}
    return form_class(data=data, instance=node)


def test_turning_one_tray_of_a_full_rack_into_another_model_is_refused_naming_the_rack(rf, full_rack):
    node = full_rack.nodes.first()
    h100 = NodeModel.objects.get(slug="hgx-h100-8")
    form = node_form(rf, node, node_model=h100.pk)
    assert not form.is_valid()
    assert "17" in form.errors["rack"][0] and "18" in form.errors["rack"][0]
    # The trial save was rolled back.
    assert full_rack.nodes.filter(node_model__slug="gb200-nvl72-tray").count() == 18


def test_an_admin_edit_that_keeps_the_rack_whole_is_saved(rf, full_rack):
    node = full_rack.nodes.first()
    form = node_form(rf, node, serial="SN-1")
    assert form.is_valid(), form.errors
    form.save()
    assert Node.objects.get(pk=node.pk).serial == "SN-1"


def test_a_new_object_judged_by_the_admin_is_not_kept(rf, full_rack):
    request = rf.post("/admin/")
    request.user = get_user_model().objects.create_superuser("formuser", "f@example.org", "pw")
    feeds = PowerFeed.objects.count()
    form_class = admin.site._registry[PowerFeed].get_form(request)
    pdu, ups = (PowerDevice.objects.get(name=n) for n in ("PDU-A", "UPS-B"))
    form = form_class(
        data={
            "campus": full_rack.campus_id,
            "side": "A",
            "rating_kw": 10.0,
            "upstream": pdu.pk,
            "downstream_device": ups.pk,
        }
    )
    assert form.is_valid(), form.errors
    assert PowerFeed.objects.count() == feeds and form.instance.pk is None


def test_deleting_one_tray_of_a_full_rack_in_the_admin_is_refused(staff, full_rack):
    node = full_rack.nodes.first()
    response = staff.post(f"/admin/campus/node/{node.pk}/delete/", {"post": "yes"}, follow=True)
    assert response.status_code == 200
    assert full_rack.nodes.count() == 18
    shown = [str(m) for m in response.context["messages"]]
    assert any("rack" in m and "17" in m for m in shown), shown


def test_deleting_trays_with_the_list_action_keeps_racks_whole(staff, full_rack):
    ids = list(full_rack.nodes.values_list("pk", flat=True))
    action = {"action": "delete_selected", "post": "yes"}
    response = staff.post("/admin/campus/node/", {**action, "_selected_action": ids[:3]}, follow=True)
    assert response.status_code == 200 and full_rack.nodes.count() == 18
    assert any("15" in str(m) for m in response.context["messages"])
    response = staff.post("/admin/campus/node/", {**action, "_selected_action": ids}, follow=True)
    assert response.status_code == 200 and not full_rack.nodes.exists()


def campus_form(rf, campus, **changes):
    request = rf.post("/admin/")
    users = get_user_model().objects
    request.user = users.filter(username="campusform").first() or users.create_superuser(
        "campusform", "c@example.org", "pw"
    )
    form_class = admin.site._registry[Campus].get_form(request, campus)
    data = {**model_to_dict(campus), **changes}
    data = {k: v for k, v in data.items() if v is not None}
    return form_class(data=data, instance=campus)


def test_the_admin_refuses_a_grid_capacity_of_zero_on_the_field_with_the_apis_message(
    rf, full_rack, planner_client
):
    # 0 MW once saved from the admin as "no grid limit" while the API answered 400: the same rule and message
    campus = full_rack.campus
    form = campus_form(rf, campus, grid_capacity_mw=0)
    assert not form.is_valid()
    api = planner_client.patch(f"/api/campuses/{campus.pk}/", {"grid_capacity_mw": 0}, format="json")
    assert api.status_code == 400
    assert form.errors["grid_capacity_mw"] == api.json()["grid_capacity_mw"]
    assert Campus.objects.get(pk=campus.pk).grid_capacity_mw == 2.0  # the spec's, unchanged
    # a capacity above 0 saves
    form = campus_form(rf, campus, grid_capacity_mw=3.5)
    assert form.is_valid(), form.errors
    form.save()
    assert Campus.objects.get(pk=campus.pk).grid_capacity_mw == 3.5


def test_the_admin_saves_a_blank_price_overrides_field_as_no_override(rf, full_rack):
    # a blank JSON field reads as None in a form; the column is NOT NULL and "no override" is {}
    campus = full_rack.campus
    form = campus_form(rf, campus, price_overrides="")
    assert form.is_valid(), form.errors
    form.save()
    assert Campus.objects.get(pk=campus.pk).price_overrides == {}


def test_the_admin_refuses_a_cooling_unit_outside_its_hall(rf, db):
    # hall H1 of the small campus is 20 x 20 m: a unit's corner at x = 25 m is outside it
    campus = import_campus(copy.deepcopy(SMALL_SPEC))
    unit = CoolingUnit.objects.get(campus=campus, name="CDU-1")
    request = rf.post("/admin/")
    request.user = get_user_model().objects.create_superuser("unituser", "u@example.org", "pw")
    form_class = admin.site._registry[CoolingUnit].get_form(request, unit)
    data = {k: v for k, v in {**model_to_dict(unit), "x_m": 25.0, "y_m": 2.0}.items() if v is not None}
    form = form_class(data=data, instance=unit)
    assert not form.is_valid()
    assert "x_m" in form.errors and "outside its hall" in form.errors["x_m"][0]
