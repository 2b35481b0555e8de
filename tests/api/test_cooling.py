from campus.models import CoolingPlant, CoolingUnit
from tests import factories as f
from tests.api.base import APIViewTests


class TestCoolingPlants(APIViewTests):
    model = CoolingPlant
    basename = "coolingplant"
    factory = f.CoolingPlantFactory
    brief_fields = ("id", "url", "name", "kind")
    update_data = {"capacity_kw": 8000.0, "cop": 6.5}
    bulk_update_data = {"restart_minutes": 10.0}
    bad_data = {"cop": 0}
    filter_params = {"campus": "campus_id", "kind": "kind", "status": "status"}

    def create_data(self):
        campus = f.CampusFactory()
        return [
            {"campus": campus.pk, "name": f"DC-{i}", "kind": "dry-cooler", "capacity_kw": 4000.0}
            for i in range(3)
        ]


class TestCoolingUnits(APIViewTests):
    model = CoolingUnit
    basename = "coolingunit"
    factory = f.CoolingUnitFactory
    brief_fields = ("id", "url", "name", "kind")
    update_data = {"capacity_kw": 2000.0, "group": "hall-a"}
    bulk_update_data = {"flow_lpm": 3000.0}
    # return below supply: a check constraint, reported on the field it names
    bad_data = {"supply_temp_c": 40.0, "return_temp_c": 30.0}
    filter_params = {"campus": "campus_id", "kind": "kind", "status": "status"}

    def create_data(self):
        campus = f.CampusFactory()
        return [
            {"campus": campus.pk, "name": f"CDU-{i}", "kind": "cdu", "capacity_kw": 1200.0} for i in range(3)
        ]
