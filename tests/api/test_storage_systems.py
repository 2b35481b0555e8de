"""/api/storage-systems/: the campus's storage as inventory, and the step time's checkpoint against it."""

import pytest
from django.urls import reverse

from campus.models import NodeModel, StorageSystem
from tests import factories as f


def _campus_with_gpus():
    campus = f.CampusFactory()
    pod = f.PodFactory(campus=campus)
    node_model = NodeModel.objects.get(slug="dgx-h100")
    for _ in range(2):
        rack = f.RackFactory(hall__building__campus=campus, pod=pod)
        for _ in range(4):
            f.NodeFactory(rack=rack, node_model=node_model)
    return campus


@pytest.mark.django_db
class TestStorageSystems:
    def test_create_list_filter_and_delete(self, planner_client):
        campus = f.CampusFactory()
        body = {
            "campus": campus.pk,
            "name": "Lustre",
            "capacity_pb": 50,
            "read_gb_s": 1000,
            "write_gb_s": 800,
        }
        r = planner_client.post(reverse("storagesystem-list"), body, format="json")
        assert r.status_code == 201, r.json()
        assert r.json()["kind"] == "parallel-fs"
        listed = planner_client.get(
            reverse("storagesystem-list"), {"campus": campus.pk, "write_gb_s__gte": 500}
        )
        assert [s["name"] for s in listed.json()["results"]] == ["Lustre"]
        assert (
            planner_client.delete(reverse("storagesystem-detail", args=[r.json()["id"]])).status_code == 204
        )

    def test_a_retired_system_is_not_in_service(self, planner_client):
        campus = f.CampusFactory()
        StorageSystem.objects.create(
            campus=campus, name="old", capacity_pb=1, read_gb_s=1, write_gb_s=1, retire_date="2024-01-01"
        )
        StorageSystem.objects.create(campus=campus, name="new", capacity_pb=1, read_gb_s=1, write_gb_s=1)
        r = planner_client.get(
            reverse("storagesystem-list"), {"campus": campus.pk, "in_service_on": "2025-06-01"}
        )
        assert [s["name"] for s in r.json()["results"]] == ["new"]

    def test_bad_fields_are_400_naming_them(self, planner_client):
        campus = f.CampusFactory()
        body = {
            "campus": campus.pk,
            "name": "x",
            "capacity_pb": 1,
            "read_gb_s": 0,
            "write_gb_s": 1,
            "iops": 5,
        }
        r = planner_client.post(reverse("storagesystem-list"), body, format="json")
        assert r.status_code == 400
        assert "iops" in r.json()
        del body["iops"]
        r = planner_client.post(reverse("storagesystem-list"), body, format="json")
        assert r.status_code == 400
        assert "read_gb_s" in r.json()

    def test_a_building_of_another_campus_is_400(self, planner_client):
        campus, other = f.CampusFactory(), f.BuildingFactory()
        body = {
            "campus": campus.pk,
            "building": other.pk,
            "name": "x",
            "capacity_pb": 1,
            "read_gb_s": 1,
            "write_gb_s": 1,
        }
        r = planner_client.post(reverse("storagesystem-list"), body, format="json")
        assert r.status_code == 400
        assert "building" in r.json()

    def test_a_write_raises_the_campus_revision(self, planner_client):
        campus = f.CampusFactory()
        before = type(campus).objects.get(pk=campus.pk).revision
        StorageSystem.objects.create(campus=campus, name="s", capacity_pb=1, read_gb_s=1, write_gb_s=1)
        assert type(campus).objects.get(pk=campus.pk).revision > before

    def test_step_time_checkpoints_to_the_campus_storage(self, viewer_client):
        campus = _campus_with_gpus()  # 64 H100
        StorageSystem.objects.create(
            campus=campus, name="slow", capacity_pb=1, read_gb_s=20, write_gb_s=10, frontend_gbps_per_node=200
        )
        body = {"model_preset": "llama3-8b", "campus": campus.pk, "global_batch": 64, "parallel": {"tp": 8}}
        r = viewer_client.post(reverse("calculator-step-time"), body, format="json")
        assert r.status_code == 200, r.json()
        ck = r.json()["checkpoint"]
        # 8.03e9 x 14 bytes at 10 GB/s (8 nodes x 25 GB/s of front end are faster)
        assert ck["storage"] == "slow"
        assert ck["checkpoint_write_s"] == pytest.approx(8.03e9 * 14 / 10e9)
        assert ck["restore_s"] == pytest.approx(8.03e9 * 14 / 20e9)

    def test_step_time_checkpoint_is_bound_by_the_racks_front_end_links(self, viewer_client):
        campus = _campus_with_gpus()  # 64 H100 in 2 racks
        StorageSystem.objects.create(campus=campus, name="fast", capacity_pb=1, read_gb_s=1e4, write_gb_s=1e4)
        switch = f.SwitchFactory(campus=campus, network="frontend")
        for rack in campus.racks.all():  # one 100G front-end link per rack: 2 x 12.5 GB/s = 25 GB/s
            f.LinkFactory(
                campus=campus, a_rack=rack, b_switch=switch, network="frontend", count=1, speed_gbps=100
            )
        body = {"model_preset": "llama3-8b", "campus": campus.pk, "global_batch": 64, "parallel": {"tp": 8}}
        r = viewer_client.post(reverse("calculator-step-time"), body, format="json")
        assert r.status_code == 200, r.json()
        ck = r.json()["checkpoint"]
        assert ck["write_bound"] == "front-end fabric"
        assert ck["frontend_fabric_gb_s"] == pytest.approx(25.0)
        assert ck["checkpoint_write_s"] == pytest.approx(8.03e9 * 14 / 25e9)

    def test_a_storage_system_of_another_campus_is_400(self, viewer_client):
        campus = _campus_with_gpus()
        other = StorageSystem.objects.create(
            campus=f.CampusFactory(), name="far", capacity_pb=1, read_gb_s=1, write_gb_s=1
        )
        body = {
            "model_preset": "llama3-8b",
            "campus": campus.pk,
            "global_batch": 64,
            "parallel": {"tp": 8},
            "storage_system": other.pk,
        }
        r = viewer_client.post(reverse("calculator-step-time"), body, format="json")
        assert r.status_code == 400
        assert "storage_system" in r.json()

    def test_the_summary_jobs_checkpoint_to_it_and_its_power_is_it_load(self, viewer_client):
        campus = _campus_with_gpus()  # 64 H100 in one pod: the 70B job (TP8 x PP4 x DP2)
        base = viewer_client.get(reverse("campus-summary", kwargs={"pk": campus.pk})).json()
        (job,) = base["reliability"]["headline"]["jobs"]
        assert job["checkpoint_minutes_source"].startswith("catalog")  # no storage system yet
        assert job["training"]["workload"]["model"] == "llama3-70b"
        StorageSystem.objects.create(
            campus=campus,
            name="fs",
            capacity_pb=1,
            read_gb_s=20,
            write_gb_s=10,
            power_kw=40,
            retire_date="2030-01-01",
        )
        body = viewer_client.get(reverse("campus-summary", kwargs={"pk": campus.pk})).json()
        (job,) = body["reliability"]["headline"]["jobs"]
        # Llama 3 70B: 70.6e9 x 14 bytes at the 10 GB/s write (8 nodes x 50 GB/s of ports are faster)
        assert job["checkpoint_minutes"] == pytest.approx(70.6e9 * 14 / 10e9 / 60)
        assert job["restart_minutes"] == pytest.approx((300 + 70.6e9 * 14 / 20e9) / 60)
        assert body["power"]["storage_mw"] == pytest.approx(0.04)
        # the 10 % allowance counted the storage: 8 DGX H100 x 10.2 kW x 0.1 / 0.9 = 9.07 kW, which the
        # 40 kW system takes up whole; IT grows only by the 30.93 kW the allowance did not hold
        allowance_mw = 8 * 10.2 * 0.1 / 0.9 / 1000
        assert base["power"]["other_it_mw"] == pytest.approx(allowance_mw)
        assert body["power"]["other_it_mw"] == 0.0
        assert body["power"]["design_it_mw"] - base["power"]["design_it_mw"] == pytest.approx(
            0.04 - allowance_mw
        )
        # retired on a later day: that day's summary has neither its checkpoint nor its power
        later = viewer_client.get(
            reverse("campus-summary", kwargs={"pk": campus.pk}), {"as_of": "2031-01-01"}
        ).json()
        assert later["power"]["storage_mw"] == 0.0
        assert later["reliability"]["headline"]["jobs"][0]["checkpoint_minutes_source"].startswith("catalog")
