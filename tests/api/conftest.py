"""Fixtures shared by the API tests."""

import pytest

from tests import factories as f


@pytest.fixture
def one_of_each(db):
    """A campus with at least one row of every registered model: a rack with a node fed on both sides (A and
    B), a link, a cooling unit and plant, a utility feed, an energy store, a switch, a pod; a failure rate, a
    row and a user."""
    node = f.NodeFactory()
    campus = node.rack.campus
    f.PowerFeedFactory(rack=node.rack, campus=campus, side="A")
    f.PowerFeedFactory(rack=node.rack, campus=campus, side="B")
    f.LinkFactory(campus=campus)
    f.CoolingUnitFactory(campus=campus)
    f.CoolingPlantFactory(campus=campus)
    f.UtilityFeedFactory(campus=campus)
    f.EnergyStorageFactory(campus=campus)
    f.StorageSystemFactory(campus=campus)
    f.SwitchFactory(campus=campus)
    f.PodFactory(campus=campus)
    f.FailureRateFactory()
    f.RowFactory()
    f.UserFactory()
    return campus
