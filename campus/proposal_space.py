"""An expansion proposal's new space written into a design branch (docs/placement.md, "New halls and buildings").

The lines ``campus.analysis.placement.expansion.space_lines`` makes (a new building, hall, utility feeds,
power devices with their feeds in, energy storage, plants, units, a pod, switch groups and their cables), each built by
copying the row it is cloned from (``target``) under its new name and rewiring it by name as the line says,
as ``expansion.apply_space`` builds them into a snapshot. Each saved through ``save`` (its model's validation).
"""

from __future__ import annotations

from campus.models import (
    Building,
    Campus,
    CoolingPlant,
    CoolingUnit,
    DataHall,
    EnergyStorage,
    Link,
    LinkMedium,
    Pod,
    PowerDevice,
    PowerFeed,
    Switch,
    UtilityFeed,
)

HALL_GAP_M = 6.0  # a new hall beside the building's others (the generator's HALL_GAP_M)


def _copy(obj, **fields):
    obj.pk = None
    obj.id = None
    obj._state.adding = True
    for k, v in fields.items():
        setattr(obj, k, v)
    return obj


def build_space(branch: Campus, add: dict, save) -> None:
    """Write one new-space line into ``branch``; ``save(obj)`` validates and saves."""
    c = add["clone"]
    table, new = c["table"], add["names"][0] if add["names"] else None
    building = Building.objects.filter(campus=branch, name=add["building"]).first()
    if table == "building":
        src = Building.objects.get(campus=branch, name=add["target"])
        save(_copy(src, name=new, x_m=c["x_m"], y_m=c["y_m"], length_m=c["length_m"]))
        return
    if table == "hall":
        src = DataHall.objects.get(
            building__campus=branch, building__name=c["from_building"], name=add["target"]
        )
        x_m, y_m = src.x_m, src.y_m
        if not c["in_new_building"]:
            x_m = max(h.x_m + h.width_m for h in DataHall.objects.filter(building=building)) + HALL_GAP_M
        save(_copy(src, name=new, building=building, x_m=x_m, y_m=y_m, length_m=c["length_m"]))
        return
    hall = DataHall.objects.filter(building=building, name=add["hall"]).first() if add.get("hall") else None
    devices = lambda name: PowerDevice.objects.get(campus=branch, name=name) if name else None  # noqa: E731
    if table == "utility_feed":
        src = UtilityFeed.objects.get(campus=branch, name=add["target"])
        save(_copy(src, name=new, capacity_mw=add["capacity_kw"] / 1000.0))
    elif table == "storage":
        src = EnergyStorage.objects.get(campus=branch, name=add["target"])
        save(_copy(src, name=new, building=building, power_device=devices(c["device"])))
    elif table == "device":
        src = PowerDevice.objects.get(campus=branch, name=add["target"])
        feeds_in = list(
            PowerFeed.objects.filter(campus=branch, downstream_device=src).select_related("upstream")
        )
        feed = UtilityFeed.objects.get(campus=branch, name=c["utility_feed"]) if c["utility_feed"] else None
        made = _copy(
            src,
            name=new,
            building=building,
            hall=hall if src.hall_id else None,
            utility_feed=feed,
            rated_kw=add["capacity_kw"],
        )
        save(made)
        for f in feeds_in:
            up = f.upstream.name
            save(_copy(f, upstream=devices(c["upstream"].get(up, up)), downstream_device=made))
    elif table == "plant":
        src = CoolingPlant.objects.get(campus=branch, name=add["target"])
        a, b = c["devices"]
        save(_copy(src, name=new, building=building, power_device=devices(a), power_device_b=devices(b)))
    elif table == "unit":
        src = CoolingUnit.objects.get(campus=branch, name=add["target"])
        a, b = c["devices"]
        plant = CoolingPlant.objects.get(campus=branch, name=c["plant"]) if c["plant"] else None
        save(
            _copy(
                src,
                name=new,
                hall=hall,
                plant=plant,
                power_device=devices(a),
                power_device_b=devices(b),
                group=c["group"],
                x_m=c["position"][0] if c["position"] else None,
                y_m=c["position"][1] if c["position"] else None,
            )  # where the template stands in its hall (the new hall is laid out like it)
        )
    elif table == "pod":
        save(_copy(Pod.objects.get(campus=branch, name=add["target"]), name=new, building=building))
    elif table == "switch":
        src = Switch.objects.get(campus=branch, name=add["target"])
        pod = Pod.objects.get(campus=branch, name=c["pod"]) if c["pod"] else None
        save(
            _copy(
                src,
                name=new,
                count=int(add["count"]),
                pod=pod,
                hall=hall if c["in_hall"] else None,
                rack=None,
            )
        )
    elif table == "link":
        save(
            Link(
                campus=branch,
                pod=Pod.objects.get(campus=branch, name=c["pod"]) if c["pod"] else None,
                network=c["network"],
                a_switch=Switch.objects.get(campus=branch, name=add["target"]),
                b_switch=Switch.objects.get(campus=branch, name=add["to"]),
                medium=LinkMedium.objects.get(slug=c["medium"]),
                count=int(add["count"]),
                length_m=c["length_m"],
                speed_gbps=c["speed_gbps"],
            )
        )
