from campus.models import Building, Campus, DataHall, Rack, Row, UtilityFeed
from tests import factories as f
from tests.api.base import APIViewTests


class TestCampuses(APIViewTests):
    model = Campus
    basename = "campus"
    factory = f.CampusFactory
    update_data = {"grid_capacity_mw": 300.0, "design_pue": 1.3}
    bulk_update_data = {"price_usd_per_kwh": 0.05}
    bad_data = {"design_pue": 0.5}
    filter_params = {"name": "name", "climate": "climate"}

    def create_data(self):
        return [
            {"name": f"Site {i}", "grid_capacity_mw": 100.0 + i, "location": "Virginia"} for i in range(3)
        ]


class TestUtilityFeeds(APIViewTests):
    model = UtilityFeed
    basename = "utilityfeed"
    factory = f.UtilityFeedFactory
    update_data = {"capacity_mw": 250.0}
    bulk_update_data = {"status": "planned"}
    bad_data = {"capacity_mw": -5}
    filter_params = {"campus": "campus_id", "status": "status"}

    def create_data(self):
        campus = f.CampusFactory()
        return [{"campus": campus.pk, "name": f"Grid {i}", "capacity_mw": 50.0} for i in range(3)]


class TestBuildings(APIViewTests):
    model = Building
    basename = "building"
    factory = f.BuildingFactory
    update_data = {"design_it_mw": 40.0, "width_m": 120.0}
    bulk_update_data = {"status": "offline"}
    bad_data = {"width_m": 0}
    filter_params = {"campus": "campus_id", "status": "status"}

    def create_data(self):
        campus = f.CampusFactory()
        return [{"campus": campus.pk, "name": f"B{i}", "x_m": 100.0 * i} for i in range(3)]


class TestDataHalls(APIViewTests):
    model = DataHall
    basename = "datahall"
    factory = f.DataHallFactory
    update_data = {"design_it_mw": 12.0}
    bulk_update_data = {"length_m": 70.0}
    bad_data = {"width_m": 5000}
    filter_params = {"building": "building_id", "campus": "building.campus_id"}

    def create_data(self):
        building = f.BuildingFactory()
        return [
            {"building": building.pk, "name": f"H{i}", "width_m": 30.0, "length_m": 50.0} for i in range(3)
        ]


class TestRows(APIViewTests):
    model = Row
    basename = "row"
    factory = f.RowFactory
    update_data = {"x_m": 4.0}
    bulk_update_data = {"y_m": 2.5}
    bad_data = {"hall": 2**40}
    filter_params = {"hall": "hall_id", "building": "hall.building_id"}

    def create_data(self):
        hall = f.DataHallFactory()
        return [{"hall": hall.pk, "name": f"Row {i}"} for i in range(3)]


class TestRacks(APIViewTests):
    model = Rack
    basename = "rack"
    factory = f.RackFactory
    update_data = {"design_kw": 120.0, "cooling_type": "immersion"}
    bulk_update_data = {"status": "planned"}
    bad_data = {"design_kw": 1500}
    filter_params = {
        "campus": "campus_id",
        "hall": "hall_id",
        "building": "hall.building_id",
        "status": "status",
        "cooling_type": "cooling_type",
    }

    def create_data(self):
        hall = f.DataHallFactory()
        return [
            {
                "campus": hall.building.campus_id,
                "hall": hall.pk,
                "name": f"R-{i}",
                "x_m": 1.0 + i,
                "y_m": 2.0,
                "design_kw": 60.0,
            }
            for i in range(3)
        ]
