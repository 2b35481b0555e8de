"""What a rack holds and what the catalog may say stay physical on every write path: the API (one object and
bulk), the admin and the spec importer.

Hand figures (catalog_data, docs/catalog.md): an HGX H100 server is 8U and draws 8 x 700 W + 4,600 W =
10.2 kW at full TDP; a GB200 NVL72 tray is 1U and draws 4 x 1,200 W + 2,530 W = 7.33 kW, 18 trays 131.94 kW.
The small spec's racks R01-01 and R01-02 are 48U (the default) and hold 4 HGX H100 servers each: 32U and
40.8 kW, their design_kw. Each test failed on the code before: the write was accepted.
"""

import copy

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.forms.models import model_to_dict

from campus.interchange.importer import import_campus
from campus.interchange.validation import CatalogIndex, SpecError, check_spec
from campus.models import GPUModel, Node, NodeModel, Rack
from tests.interchange.conftest import SMALL_SPEC

H100_KW = (8 * 700 + 4600) / 1000  # 10.2
TRAY_KW = (4 * 1200 + 2530) / 1000  # 7.33


@pytest.fixture
def campus(db):
    return import_campus(copy.deepcopy(SMALL_SPEC))


def rack(campus, name="R01-01") -> Rack:
    return Rack.objects.get(campus=campus, name=name)


def h100_nodes(rack, count, start=10, **extra):
    model = NodeModel.objects.get(slug="hgx-h100-8").pk
    return [{"rack": rack.pk, "node_model": model, "name": f"N{start + i}", **extra} for i in range(count)]


@pytest.fixture
def nvl72(campus):
    """R01-01 emptied and filled with a whole GB200 NVL72 (designed for its 131.94 kW)."""
    r = rack(campus)
    r.nodes.all().delete()
    Rack.objects.filter(pk=r.pk).update(design_kw=140.0)
    tray = NodeModel.objects.get(slug="gb200-nvl72-tray")
    Node.objects.bulk_create(Node(rack=r, node_model=tray, name=f"T{i:02d}") for i in range(18))
    r.refresh_from_db()
    return r


def admin_request(rf):
    request = rf.post("/admin/")
    users = get_user_model().objects
    request.user = users.filter(username="formuser").first() or users.create_superuser(
        "formuser", "f@example.org", "pw"
    )
    return request


def form(rf, model, obj, **changes):
    request = admin_request(rf)
    form_class = admin.site._registry[model].get_form(request, obj)
    data = {**model_to_dict(obj), **changes}
    return form_class(data={k: v for k, v in data.items() if v is not None}, instance=obj)


# ---------------------------------------------------------------- rack units


class TestRackUnits:
    def test_patching_a_rack_below_its_servers_units_is_400_naming_rack_units(self, planner_client, campus):
        r = rack(campus)
        for units, field_error in ((0, "greater than or equal to 1"), (24, "32U")):
            response = planner_client.patch(f"/api/racks/{r.pk}/", {"rack_units": units}, format="json")
            assert response.status_code == 400, response.content
            assert field_error in response.json()["rack_units"][0]
        assert "24U" in response.json()["rack_units"][0]
        # 4 x 8U = 32U fills a 32U rack exactly.
        assert (
            planner_client.patch(f"/api/racks/{r.pk}/", {"rack_units": 32}, format="json").status_code == 200
        )
        r.refresh_from_db()
        assert r.rack_units == 32

    def test_bulk_patch_of_racks_is_keyed_by_index_and_writes_nothing(self, planner_client, campus):
        one, two = rack(campus), rack(campus, "R01-02")
        body = [{"id": one.pk, "rack_units": 40}, {"id": two.pk, "rack_units": 24}]
        response = planner_client.patch("/api/racks/", body, format="json")
        assert response.status_code == 400, response.content
        assert list(response.json()) == ["1"] and "rack_units" in response.json()["1"]
        assert Rack.objects.get(pk=one.pk).rack_units == 48

    def test_six_more_8u_servers_in_one_request_are_400_naming_rack_and_write_nothing(
        self, planner_client, campus
    ):
        r = rack(campus)
        Rack.objects.filter(pk=r.pk).update(design_kw=200.0)  # power is not what binds here: 10 x 10.2 kW
        # 32U + 6 x 8U = 80U in a 48U rack.
        response = planner_client.post("/api/nodes/", h100_nodes(r, 6), format="json")
        assert response.status_code == 400, response.content
        assert list(response.json()) == ["5"]
        assert "80U" in response.json()["5"]["rack"][0] and "48U" in response.json()["5"]["rack"][0]
        assert r.nodes.count() == 4
        # 2 more fill it: 48U.
        assert planner_client.post("/api/nodes/", h100_nodes(r, 2), format="json").status_code == 201
        one_more = planner_client.post("/api/nodes/", h100_nodes(r, 1, start=20)[0], format="json")
        assert one_more.status_code == 400 and "56U" in one_more.json()["rack"][0]

    def test_servers_moved_into_a_full_rack_are_400(self, planner_client, campus):
        r, other = rack(campus), rack(campus, "R01-02")
        Rack.objects.filter(pk=r.pk).update(design_kw=200.0)
        body = [{"id": n.pk, "rack": r.pk} for n in other.nodes.all()[:3]]  # 32U + 24U = 56U
        response = planner_client.patch("/api/nodes/", body, format="json")
        assert response.status_code == 400 and "56U" in response.json()["2"]["rack"][0]
        assert other.nodes.count() == 4

    def test_a_refresh_in_place_counts_the_servers_in_service_on_each_day(self, planner_client, campus):
        r = rack(campus)
        Node.objects.filter(rack=r).update(retire_date="2027-06-01")
        # 4 old servers leave on 2027-06-01 and 4 new ones arrive that day: 32U on every day.
        fine = h100_nodes(r, 4, in_service_date="2027-06-01")
        assert planner_client.post("/api/nodes/", fine, format="json").status_code == 201
        # The four new ones a month early overlap the old ones: 4 x 8U + 4 x 8U = 64U from 2027-05-01.
        early = [{"id": n.pk, "in_service_date": "2027-05-01"} for n in r.nodes.filter(retire_date=None)]
        response = planner_client.patch("/api/nodes/", early, format="json")
        assert response.status_code == 400, response.content
        message = " ".join(response.json()["3"]["rack"])
        assert "64U" in message and "2027-05-01" in message

    def test_the_admin_refuses_a_rack_below_its_servers_units_naming_the_field(self, rf, campus):
        r = rack(campus)
        f = form(rf, Rack, r, rack_units=24)
        assert not f.is_valid()
        assert "32U" in f.errors["rack_units"][0]
        assert Rack.objects.get(pk=r.pk).rack_units == 48

    def test_the_admin_refuses_a_server_added_to_a_full_rack(self, rf, campus):
        r = rack(campus)
        Rack.objects.filter(pk=r.pk).update(rack_units=32, design_kw=200.0)
        request = admin_request(rf)
        model = NodeModel.objects.get(slug="hgx-h100-8").pk
        data = {"rack": r.pk, "node_model": model, "name": "N99", "status": "active"}
        f = admin.site._registry[Node].get_form(request)(data=data)
        assert not f.is_valid()
        assert "40U" in f.errors["rack"][0]
        assert r.nodes.count() == 4

    def test_the_importer_refuses_servers_beyond_the_rack(self, db):
        spec = copy.deepcopy(SMALL_SPEC)
        racks = spec["buildings"][0]["halls"][0]["rows"][0]["racks"]
        racks[0]["nodes"][0]["count"] = 7  # 56U in 48U
        racks[0]["design_kw"] = 80.0  # 7 x 10.2 = 71.4 kW: power does not bind
        racks[1]["rack_units"] = 24  # 32U in 24U
        with pytest.raises(SpecError) as caught:
            import_campus(spec)
        at = {e["path"].rsplit("racks", 1)[1]: e["message"] for e in caught.value.errors}
        assert "56U" in at["[0].nodes"] and "48U" in at["[0].nodes"]
        assert "32U" in at["[1].rack_units"] and "24U" in at["[1].rack_units"]


# ---------------------------------------------------------------- design power


class TestDesignPower:
    def test_design_kw_below_the_installed_servers_is_400_with_the_installed_figure(
        self, planner_client, campus
    ):
        r = rack(campus)
        assert pytest.approx(40.8) == 4 * H100_KW
        response = planner_client.patch(f"/api/racks/{r.pk}/", {"design_kw": 5}, format="json")
        assert response.status_code == 400, response.content
        assert "40.80 kW" in response.json()["design_kw"][0]
        assert Rack.objects.get(pk=r.pk).design_kw == 40.8
        # Extra IT counts with the servers: 40.8 + 10 = 50.8 kW.
        response = planner_client.patch(f"/api/racks/{r.pk}/", {"extra_it_kw": 10}, format="json")
        # said on the field the request gave
        assert response.status_code == 400 and "50.80 kW" in response.json()["extra_it_kw"][0]
        body = {"extra_it_kw": 10, "design_kw": 50.8}
        assert planner_client.patch(f"/api/racks/{r.pk}/", body, format="json").status_code == 200

    def test_bulk_writes_beyond_the_design_are_keyed_by_index(self, planner_client, campus):
        one, two = rack(campus), rack(campus, "R01-02")
        body = [{"id": one.pk, "design_kw": 60.0}, {"id": two.pk, "design_kw": 30.0}]
        response = planner_client.patch("/api/racks/", body, format="json")
        assert response.status_code == 400 and list(response.json()) == ["1"]
        assert "design_kw" in response.json()["1"]
        # A fifth server in a 40.8 kW rack: 5 x 10.2 = 51 kW.
        response = planner_client.post("/api/nodes/", h100_nodes(one, 1) + h100_nodes(two, 1), format="json")
        assert response.status_code == 400 and set(response.json()) == {"0", "1"}
        assert "51.00 kW" in response.json()["0"]["rack"][0]

    def test_the_admin_refuses_design_kw_below_the_servers(self, rf, campus):
        f = form(rf, Rack, rack(campus), design_kw=5.0)
        assert not f.is_valid() and "40.80 kW" in f.errors["design_kw"][0]

    def test_the_importer_refuses_design_kw_below_the_servers(self, db):
        spec = copy.deepcopy(SMALL_SPEC)
        spec["buildings"][0]["halls"][0]["rows"][0]["racks"][1]["design_kw"] = 30.0
        with pytest.raises(SpecError) as caught:
            import_campus(spec)
        [error] = caught.value.errors
        assert error["path"].endswith("racks[1].design_kw") and "40.80 kW" in error["message"]

    def test_the_check_without_a_database_uses_the_catalog_sizes_it_is_given(self):
        catalog = CatalogIndex(
            node_models={"hgx-h100-8": (1, 8)},
            switch_models={"quantum-2-qm9700": 1},
            media={"sr": (1, 50.0)},
            node_sizes={"hgx-h100-8": (8, 10_200.0)},
        )
        spec = copy.deepcopy(SMALL_SPEC)
        assert check_spec(copy.deepcopy(spec), lambda: catalog) == []
        spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]["design_kw"] = 40.7
        [error] = check_spec(spec, lambda: catalog)
        assert "40.80 kW" in error["message"]


# ---------------------------------------------------------------- whole NVL72 domains over time


class TestDomainDates:
    def test_a_failed_tray_is_an_operational_state(self, planner_client, nvl72):
        tray = nvl72.nodes.first()
        response = planner_client.patch(f"/api/nodes/{tray.pk}/", {"status": "failed"}, format="json")
        assert response.status_code == 200, response.content

    @pytest.mark.parametrize("field", ["retire_date", "in_service_date"])
    def test_dates_that_split_the_domain_are_400_naming_rack(self, planner_client, nvl72, field):
        tray = nvl72.nodes.first()
        response = planner_client.patch(f"/api/nodes/{tray.pk}/", {field: "2027-01-01"}, format="json")
        assert response.status_code == 400, response.content
        message = response.json()["rack"][0]
        # Retired on 2027-01-01: 17 trays from that day; in service from then: 17 trays before it.
        assert "17" in message and "18" in message
        assert ("2027-01-01" in message) == (field == "retire_date")
        assert getattr(Node.objects.get(pk=tray.pk), field) is None

    def test_the_whole_domain_may_change_dates_together(self, planner_client, nvl72):
        trays = list(nvl72.nodes.all())
        body = [{"id": t.pk, "retire_date": "2027-01-01"} for t in trays]
        response = planner_client.patch("/api/nodes/", body[:17], format="json")
        assert response.status_code == 400 and list(response.json()) == ["16"]
        assert planner_client.patch("/api/nodes/", body, format="json").status_code == 200
        # The next NVL72 takes the same rack from that day: 18 trays on every day, 131.94 kW, 18U.
        tray = NodeModel.objects.get(slug="gb200-nvl72-tray").pk
        new = [
            {"rack": nvl72.pk, "node_model": tray, "name": f"U{i:02d}", "in_service_date": "2027-01-01"}
            for i in range(18)
        ]
        assert planner_client.post("/api/nodes/", new, format="json").status_code == 201
        assert pytest.approx(131.94) == 18 * TRAY_KW

    def test_the_admin_refuses_a_retire_date_on_one_tray(self, rf, nvl72):
        tray = nvl72.nodes.first()
        f = form(rf, Node, tray, retire_date="2027-01-01")
        assert not f.is_valid()
        assert "17" in f.errors["rack"][0]

    def test_the_importer_refuses_groups_whose_dates_split_a_domain(self, db):
        spec = copy.deepcopy(SMALL_SPEC)
        r = spec["buildings"][0]["halls"][0]["rows"][0]["racks"][0]
        r["design_kw"] = 140.0
        r["nodes"] = [
            {"model": "gb200-nvl72-tray", "count": 17},
            {"model": "gb200-nvl72-tray", "count": 1, "retire_date": "2027-01-01"},
        ]
        with pytest.raises(SpecError) as caught:
            import_campus(copy.deepcopy(spec))
        [error] = caught.value.errors
        assert "17" in error["message"] and "2027-01-01" in error["message"]
        # A refresh: 18 trays leave on the day 18 others arrive.
        r["nodes"] = [
            {"model": "gb200-nvl72-tray", "count": 18, "retire_date": "2027-01-01"},
            {"model": "gb200-nvl72-tray", "count": 18, "in_service_date": "2027-01-01"},
        ]
        assert import_campus(spec).racks.get(name="R01-01").nodes.count() == 36


# ---------------------------------------------------------------- catalog bounds


class TestCatalogBounds:
    def node_model(self, **extra):
        gpu = GPUModel.objects.get(slug="h100-sxm").pk
        base = {"slug": "huge", "name": "Huge", "source": "typo", "gpu_model": gpu, "gpus_per_node": 8}
        return {**base, "overhead_w": 4600.0, "rack_units": 8, **extra}

    def test_a_node_model_beyond_physical_bounds_is_400_naming_each_field(self, admin_client_api, db):
        body = self.node_model(overhead_w=1e9, rack_units=60, nics=100)
        response = admin_client_api.post("/api/node-models/", body, format="json")
        assert response.status_code == 400, response.content
        assert set(response.json()) == {"overhead_w", "rack_units", "nics"}
        bulk = [self.node_model(slug="ok"), self.node_model(slug="bad", overhead_w=20_001)]
        response = admin_client_api.post("/api/node-models/", bulk, format="json")
        assert response.status_code == 400 and list(response.json()) == ["1"]
        assert not NodeModel.objects.filter(slug__in=["ok", "bad", "huge"]).exists()
        gpu = GPUModel.objects.get(slug="h100-sxm")
        response = admin_client_api.patch(f"/api/gpu-models/{gpu.pk}/", {"tdp_w": 1e6}, format="json")
        assert response.status_code == 400 and "tdp_w" in response.json()

    def test_a_catalog_row_made_bigger_is_judged_against_the_racks_holding_it(self, admin_client_api, campus):
        h100 = NodeModel.objects.get(slug="hgx-h100-8")
        # 4 servers x 14U = 56U in the 48U racks.
        response = admin_client_api.patch(f"/api/node-models/{h100.pk}/", {"rack_units": 14}, format="json")
        assert response.status_code == 400 and "56U" in response.json()["rack_units"][0]
        # 4 x (8 x 700 + 7,000) W = 50.4 kW in 40.8 kW racks.
        response = admin_client_api.patch(f"/api/node-models/{h100.pk}/", {"overhead_w": 7000}, format="json")
        assert response.status_code == 400 and "50.40 kW" in response.json()["overhead_w"][0]
        # 4 x (8 x 1,000 + 4,600) W = 50.4 kW.
        gpu = h100.gpu_model
        response = admin_client_api.patch(f"/api/gpu-models/{gpu.pk}/", {"tdp_w": 1000}, format="json")
        assert response.status_code == 400 and "50.40 kW" in response.json()["tdp_w"][0]
        h100.refresh_from_db()
        assert (h100.rack_units, h100.overhead_w, h100.gpu_model.tdp_w) == (8, 4600.0, 700.0)

    def test_the_admin_refuses_a_node_model_beyond_bounds(self, rf, campus):
        h100 = NodeModel.objects.get(slug="hgx-h100-8")
        f = form(rf, NodeModel, h100, overhead_w=1e9)
        assert not f.is_valid() and "overhead_w" in f.errors
        h100 = NodeModel.objects.get(slug="hgx-h100-8")  # the form changed the one in memory
        f = form(rf, NodeModel, h100, rack_units=14)
        assert not f.is_valid() and "56U" in f.errors["rack_units"][0]
