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
