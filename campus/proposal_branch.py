"""An expansion proposal's additions written into a design branch (docs/placement.md, "Expansion proposals").

The same additions ``campus.analysis.placement.growth.apply_additions`` writes into a snapshot, written into
the branch's rows by name, each through its model's validation: switches added to their group's ``count``,
cables to the group's first link up to ``to``, cooling units cloned from ``target`` under the proposal's
``names`` (same kind, capacity, temperatures, flow, plant, supplies, group and hall), plants, power devices,
utility feeds and the grid connection grown by ``count × capacity_kw`` (a device's feeds from upstream
in proportion). Rows are laid by the racks
(``placement_branch``).
"""

from __future__ import annotations

from campus.models import Campus, CoolingPlant, CoolingUnit, Link, PowerDevice, PowerFeed, Switch, UtilityFeed
from campus.proposal_space import build_space

SWITCH_TIERS = ("leaf", "spine", "core")
_UNIT_FIELDS = (
    "hall_id",
    "plant_id",
    "power_device_id",
    "power_device_b_id",
    "kind",
    "capacity_kw",
    "supply_temp_c",
    "return_temp_c",
    "flow_lpm",
    "group",
)


def build_additions(branch: Campus, additions: list[dict], save) -> None:
    """Write ``additions`` into ``branch``; ``save(obj)`` validates and saves each changed row."""
    for add in additions:
        if add.get("clone"):
            build_space(branch, add, save)  # new space: a building, hall, and what stands in them
            continue
        kind, n, target = add["kind"], int(add["count"]), add["target"]
        grow = n * float(add.get("capacity_kw") or 0.0)
        category = add["category"]
        if add.get("with_racks"):
            continue  # the racks' uplinks: written with the racks (placement_branch)
        if category == "network" and kind in SWITCH_TIERS:
            sw = Switch.objects.get(campus=branch, name=target)
            sw.count += n
            save(sw)
        elif kind == "optic":
            link = (
                Link.objects.filter(campus=branch, a_switch__name=target, b_switch__name=add["to"])
                .order_by("pk")
                .first()
            )
            link.count += n
            save(link)
        elif category == "cooling" and add["names"]:
            src = CoolingUnit.objects.get(campus=branch, name=target)
            spots = add.get("positions") or [None] * len(add["names"])
            for name, spot in zip(add["names"], spots, strict=True):
                x, y = spot if spot is not None else (None, None)
                fields = {f: getattr(src, f) for f in _UNIT_FIELDS}
                save(CoolingUnit(campus=branch, name=name, x_m=x, y_m=y, **fields))
        elif category == "cooling":
            plant = CoolingPlant.objects.get(campus=branch, name=target)
            plant.capacity_kw += grow
            save(plant)
        elif kind == "utility_feed":
            feed = UtilityFeed.objects.get(campus=branch, name=target)
            feed.capacity_mw += grow / 1000.0
            save(feed)
        elif kind == "grid":
            branch.grid_capacity_mw += grow / 1000.0
            save(branch)
        elif category == "power":
            dev = PowerDevice.objects.get(campus=branch, name=target)
            scale = (dev.rated_kw + grow) / dev.rated_kw if dev.rated_kw > 0 else 1.0
            dev.rated_kw += grow
            save(dev)
            # the feeds into it (cable and breaker) grow with it, in proportion
            for feed in PowerFeed.objects.filter(campus=branch, downstream_device=dev):
                feed.rating_kw *= scale
                save(feed)
