"""A small but complete campus in the database (one building, one pod, a few racks of HGX H100 servers),
enough for every scenario kind to run in well under a second per replica."""

from __future__ import annotations

from campus.models import Building, Campus, DataHall, Node, NodeModel, Pod, Rack, Row


def build_small_campus(name: str = "Test campus", racks: int = 4, nodes_per_rack: int = 4) -> Campus:
    campus = Campus.objects.create(name=name, grid_capacity_mw=5.0)
    building = Building.objects.create(campus=campus, name="B1", design_it_mw=2.0)
    hall = DataHall.objects.create(building=building, name="H1", width_m=40, length_m=30, design_it_mw=2.0)
    row = Row.objects.create(hall=hall, name="R1")
    pod = Pod.objects.create(campus=campus, building=building, name="Pod 1")
    node_model = NodeModel.objects.get(slug="hgx-h100-8")
    for r in range(racks):
        rack = Rack.objects.create(
            campus=campus,
            hall=hall,
            row=row,
            name=f"R1-{r:02d}",
            x_m=1.0 + r,
            y_m=1.0,
            design_kw=45.0,
            cooling_type="direct-to-chip",
            pod=pod,
        )
        Node.objects.bulk_create(
            Node(rack=rack, node_model=node_model, name=f"n{r:02d}-{n}") for n in range(nodes_per_rack)
        )
    return campus


def add_cdu(campus: Campus, name: str = "CDU 1"):
    """One coolant distribution unit serving every rack of the campus (what a liquid-cooling scenario needs)."""
    from campus.models import CoolingUnit

    hall = DataHall.objects.filter(building__campus=campus).first()
    unit = CoolingUnit.objects.create(campus=campus, hall=hall, name=name, kind="cdu", capacity_kw=800)
    Rack.objects.filter(campus=campus).update(cooling_unit=unit)
    return unit
