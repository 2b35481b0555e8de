from campus.models import Link, Pod, Switch
from tests import factories as f
from tests.api.base import APIViewTests


class TestPods(APIViewTests):
    model = Pod
    basename = "pod"
    factory = f.PodFactory
    update_data = {"oversubscription": 7.0, "topology": "middle-of-rack"}
    bulk_update_data = {"priority": 3}
    bad_data = {"oversubscription": 0.5}
    filter_params = {"campus": "campus_id", "fabric": "fabric", "topology": "topology"}

    def create_data(self):
        campus = f.CampusFactory()
        return [{"campus": campus.pk, "name": f"Island {i}", "fabric": "spectrum-x"} for i in range(3)]


class TestSwitches(APIViewTests):
    model = Switch
    basename = "switch"
    factory = f.SwitchFactory
    brief_fields = ("id", "url", "name", "tier")
    update_data = {"count": 16, "tier": "core"}
    bulk_update_data = {"network": "frontend"}
    bad_data = {"count": 0}
    filter_params = {"campus": "campus_id", "tier": "tier", "model": "model_id", "network": "network"}

    def create_data(self):
        campus = f.CampusFactory()
        model = f.SwitchModelFactory()
        return [
            {"campus": campus.pk, "name": f"spine-{i}", "tier": "spine", "model": model.pk, "count": 4}
            for i in range(3)
        ]


class TestLinks(APIViewTests):
    model = Link
    basename = "link"
    factory = f.LinkFactory
    brief_fields = ("id", "url", "count", "length_m")
    update_data = {"count": 16, "length_m": 30.0}
    bulk_update_data = {"speed_gbps": 800.0}
    bad_data = {"length_m": 5000.0}  # beyond the medium's 50 m reach: the model's clean() names length_m
    filter_params = {
        "campus": "campus_id",
        "b_switch": "b_switch_id",
        "medium": "medium_id",
        "network": "network",
    }

    def create_data(self):
        campus = f.CampusFactory()
        leaf = f.SwitchFactory(campus=campus)
        spine = f.SwitchFactory(campus=campus, tier="spine")
        medium = f.LinkMediumFactory()
        return [
            {
                "campus": campus.pk,
                "a_switch": leaf.pk,
                "b_switch": spine.pk,
                "medium": medium.pk,
                "count": 32,
                "length_m": 10.0 + i,
            }
            for i in range(3)
        ]
