"""Large lists run in a bounded number of queries, whatever their length."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campus.choices import NodeStatus
from campus.models import Node, PowerFeed, Rack
from tests import factories as f

RACKS = 1000


@pytest.fixture
def thousand_racks(db):
    hall = f.DataHallFactory(width_m=200.0, length_m=200.0)
    campus = hall.building.campus
    pod = f.PodFactory(campus=campus)
    unit = f.CoolingUnitFactory(campus=campus, hall=hall)
    node_model = f.NodeModelFactory()
    pdu_a = f.PowerDeviceFactory(campus=campus, name="PDU-A")
    pdu_b = f.PowerDeviceFactory(campus=campus, name="PDU-B")
    racks = Rack.objects.bulk_create(
        Rack(
            campus=campus,
            hall=hall,
            pod=pod,
            cooling_unit=unit,
            name=f"R{i:04d}",
            x_m=i % 200,
            y_m=i // 200,
            design_kw=60.0,
        )
        for i in range(RACKS)
    )
    Node.objects.bulk_create(
        Node(rack=rack, node_model=node_model, name=f"n{k}", status=NodeStatus.ACTIVE)
        for rack in racks
        for k in range(2)
    )
    PowerFeed.objects.bulk_create(
        PowerFeed(campus=campus, upstream=pdu, rack=rack, side=side, rating_kw=80.0)
        for rack in racks
        for pdu, side in ((pdu_a, "A"), (pdu_b, "B"))
    )
    return {"campus": campus, "node_model": node_model}


@pytest.mark.django_db
def test_thousand_racks_with_power_roll_up_in_bounded_queries(
    viewer_client, thousand_racks, django_assert_max_num_queries
):
    node_kw = (8 * 700.0 + 4600.0) / 1000.0
    with django_assert_max_num_queries(20):
        response = viewer_client.get(
            reverse("rack-list"), {"limit": RACKS, "campus": thousand_racks["campus"].pk}
        )
    assert response.status_code == 200
    rows = response.data["results"]
    assert len(rows) == RACKS
    power = rows[0]["power"]
    assert power["gpus"] == 16
    assert power["it_load_kw"] == pytest.approx(2 * node_kw)
    assert (power["feed_a_kw"], power["feed_b_kw"]) == (80.0, 80.0)
    assert power["single_side_load_pct"] == pytest.approx(100 * 2 * node_kw / 80.0, rel=1e-3)
    assert rows[0]["hall"]["name"] and rows[0]["pod"]["id"] and rows[0]["cooling_unit"]["id"]


@pytest.mark.django_db
def test_campus_floor_map_of_thousand_racks_in_bounded_queries(
    viewer_client, thousand_racks, django_assert_max_num_queries
):
    from campus import state as states

    states.forget()
    url = reverse("campus-floor-map", kwargs={"pk": thousand_racks["campus"].pk})
    with django_assert_max_num_queries(40):
        response = viewer_client.get(url)
    assert response.status_code == 200
    assert len(response.json()["racks"]) == RACKS


@pytest.mark.django_db
def test_node_list_is_bounded(viewer_client, thousand_racks, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        response = viewer_client.get(reverse("node-list"), {"limit": 1000})
    assert response.status_code == 200
    assert len(response.data["results"]) == 1000


@pytest.mark.django_db
def test_a_page_of_racks_costs_the_same_queries_whatever_its_size(viewer_client, thousand_racks):
    counts = {}
    for limit in (1, 50, 500):
        viewer_client.get(reverse("rack-list"), {"limit": 1})  # the token and the role read once
        with CaptureQueriesContext(connection) as queries:
            response = viewer_client.get(
                reverse("rack-list"), {"limit": limit, "campus": thousand_racks["campus"].pk}
            )
        assert response.status_code == 200 and len(response.data["results"]) == limit
        counts[limit] = len(queries)
    assert len(set(counts.values())) == 1, counts
    assert counts[50] <= 6, [q["sql"][:80] for q in queries.captured_queries]
