"""A page of racks works out the figures racks share (make, extras, feed ratings) once per request
(campus.api.rack_power). The truth is each rack's figures by hand, and each rack's own detail, read on its
own: racks alike in all but one of those get their own figures on one page."""

import pytest

from campus.choices import NodeStatus
from campus.models import Node, PowerFeed, Rack
from tests import factories as f


@pytest.mark.django_db
def test_racks_alike_but_in_one_figure_get_their_own_on_one_page(viewer_client):
    hall = f.DataHallFactory(width_m=100.0, length_m=100.0)
    campus = hall.building.campus
    model = f.NodeModelFactory()  # 8 GPUs of 700 W and 4,600 W of the rest: 10.2 kW a server
    other_model = f.NodeModelFactory()
    pdu = f.PowerDeviceFactory(campus=campus, name="PDU")
    # (servers, servers of the other make, extra kW, side A kW, side B kW, failed servers)
    layouts = [
        (2, 0, 0.0, 80.0, 80.0, 0),
        (2, 0, 1.5, 80.0, 80.0, 0),  # extras
        (2, 0, 0.0, 80.0, 40.0, 0),  # a weaker side B
        (2, 0, 0.0, 60.0, 0.0, 0),  # side A only
        (1, 1, 0.0, 80.0, 80.0, 0),  # another make
        (2, 0, 0.0, 80.0, 80.0, 1),  # a third server, failed
    ]
    for i, (n, other, extra, a_kw, b_kw, failed) in enumerate(layouts):
        rack = Rack.objects.create(
            campus=campus, hall=hall, name=f"R{i}", x_m=2.0 * i, y_m=0.0, design_kw=60.0, extra_it_kw=extra
        )
        for k, (node_model, status) in enumerate(
            [(model, NodeStatus.ACTIVE)] * n
            + [(other_model, NodeStatus.ACTIVE)] * other
            + [(model, NodeStatus.FAILED)] * failed
        ):
            Node.objects.create(rack=rack, node_model=node_model, name=f"n{k}", status=status)
        for side, kw in (("A", a_kw), ("B", b_kw)):
            if kw:
                PowerFeed.objects.create(campus=campus, upstream=pdu, rack=rack, side=side, rating_kw=kw)
    page = viewer_client.get("/api/racks/", {"campus": campus.pk, "limit": 50}).json()["results"]
    assert [rack["name"] for rack in page] == [f"R{i}" for i in range(len(layouts))]
    # ConnectX-7 NICs (the factories' default) draw nothing over the server's overhead.
    assert model.nic_kind == other_model.nic_kind == "connectx7"
    server_kw = {
        m.pk: (m.gpus_per_node * m.gpu_model.tdp_w + m.overhead_w) / 1000.0 for m in (model, other_model)
    }
    for rack, (n, other, extra, a_kw, b_kw, _failed) in zip(page, layouts, strict=True):
        power = rack["power"]
        it_kw = n * server_kw[model.pk] + other * server_kw[other_model.pk] + extra
        weakest = min(kw for kw in (a_kw, b_kw) if kw)
        assert power["it_load_kw"] == pytest.approx(it_kw), rack["name"]
        assert power["gpus"] == n * model.gpus_per_node + other * other_model.gpus_per_node, rack["name"]
        assert (power["feed_a_kw"], power["feed_b_kw"]) == (a_kw, b_kw), rack["name"]
        assert power["single_side_load_pct"] == pytest.approx(100 * it_kw / weakest, abs=0.01), rack["name"]
        assert power == viewer_client.get(f"/api/racks/{rack['id']}/").json()["power"], rack["name"]
