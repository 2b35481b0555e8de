import pytest
from django.urls import reverse

from campus.models import Node
from tests import factories as f
from tests.api.base import APIViewTests


class TestNodes(APIViewTests):
    model = Node
    basename = "node"
    factory = f.NodeFactory
    update_data = {"status": "spare", "serial": "SN-1"}
    bulk_update_data = {"status": "maintenance"}
    bad_data = {"status": "melted"}
    filter_params = {
        "rack": "rack_id",
        "campus": "rack.campus_id",
        "hall": "rack.hall_id",
        "node_model": "node_model_id",
        "status": "status",
    }

    def create_data(self):
        rack = f.RackFactory()
        model = f.NodeModelFactory()
        return [
            {"rack": rack.pk, "node_model": model.pk, "name": f"gpu-{i}", "position_u": 8 * i + 1}
            for i in range(3)
        ]


@pytest.mark.django_db
def test_rack_power_follows_a_catalog_change(planner_client):
    node = f.NodeFactory(node_model__overhead_w=4600.0, node_model__gpu_model__tdp_w=700.0)
    rack_url = reverse("rack-detail", kwargs={"pk": node.rack_id})
    before = planner_client.get(rack_url).data["power"]["it_load_kw"]
    assert before == pytest.approx((8 * 700.0 + 4600.0) / 1000.0)
    model_url = reverse("nodemodel-detail", kwargs={"pk": node.node_model_id})
    assert planner_client.patch(model_url, {"overhead_w": 5600.0}, format="json").status_code == 200
    after = planner_client.get(rack_url).data["power"]["it_load_kw"]
    assert after == pytest.approx(before + 1.0)
