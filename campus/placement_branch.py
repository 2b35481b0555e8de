"""Apply a capacity-placement option as a design branch (docs/planning.md, "Capacity placement").

The branch is a copy of the campus (``branching.create_branch``); the option's racks, their servers, their
A and B feeds and their back-end cables are added to it in the same transaction, each object through its
model's own validation (``full_clean``: references within the campus, racks inside their hall and on no
other rack's tiles, a link's reach, whole rack-scale domains), then ``WriteCheck`` on the final state. Any
problem rolls the whole branch back.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from campus import branching
from campus.analysis.placement import DEFAULT_RACK_SIZE_M
from campus.integrity import WriteCheck
from campus.models import (
    Campus,
    CoolingUnit,
    DataHall,
    Link,
    LinkMedium,
    Node,
    NodeModel,
    Pod,
    PowerDevice,
    PowerFeed,
    Rack,
    Row,
    Switch,
)
from campus.proposal_branch import build_additions
from campus.redundancy_guard import RedundancyGuard


class PlacementInvalid(Exception):
    """The placed racks break an inventory rule; ``objects`` names them."""

    def __init__(self, objects: list[dict]) -> None:
        self.objects = objects
        super().__init__("; ".join(f"{o['model']} {o['name']}: {o['reason']}" for o in objects))


def _unique(base: str, taken: set[str]) -> str:
    k = 1
    while f"{base}{k:02d}" in taken:
        k += 1
    name = f"{base}{k:02d}"
    taken.add(name)
    return name


def _save(obj, reason: str, check: WriteCheck) -> None:
    try:
        obj.full_clean()
    except ValidationError as exc:
        fields = exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}
        reason_text = "; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items())
        raise PlacementInvalid(
            [
                {
                    "model": obj._meta.model_name,
                    "name": str(getattr(obj, "name", obj.pk)),
                    "reason": reason_text,
                }
            ]
        ) from None
    obj._change_reason = reason
    obj.save()
    check.note(obj)


def whips_beside(branch: Campus, hall: DataHall, feeds: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The other feeds, (device, side), of a rack of ``hall`` fed by ``feeds`` (its first A and B device):
    the second whip a side of a 2(N+1) design (docs/generator.md), so that a rack placed beside it keeps
    its redundancy; none where the racks have one feed a side."""
    if len(feeds) < 2:
        return []
    (a, _), (b, _) = feeds
    neighbour = (
        PowerFeed.objects.filter(campus=branch, rack__hall=hall, upstream_id=a, side="A")
        .filter(rack__feeds__upstream_id=b, rack__feeds__side="B")
        .values_list("rack_id", flat=True)
        .first()
    )
    if neighbour is None:
        return []
    return list(
        PowerFeed.objects.filter(rack_id=neighbour, side__in=("A", "B"))
        .exclude(upstream_id__in=(a, b))
        .order_by("side", "id")
        .values_list("upstream_id", "side")
    )


def apply_as_branch(
    parent: Campus,
    name: str,
    option: dict,
    node_model: str,
    additions: list[dict] | None = None,
    guard: RedundancyGuard | None = None,
) -> Campus:
    """A new branch ``name`` of ``parent`` with an expansion proposal's ``additions`` built
    (``proposal_branch``) and ``option``'s racks placed; one transaction. ``guard`` (a write's
    ``RedundancyGuard``) judges the branch from the parent's levels."""
    with transaction.atomic():
        branch = branching.create_branch(parent, name)
        if guard is not None:
            guard.inherit(branch.pk, parent.pk)
        if additions:
            built = WriteCheck()
            what = f"Expansion proposal for {len(option['racks'])} rack(s) of {node_model}"
            build_additions(branch, additions, lambda obj: _save(obj, what, built))
            problems = built.problems()
            if problems:
                raise PlacementInvalid(
                    [
                        {"model": p.obj[0], "name": str(p.obj[1]), "reason": f"{p.field}: {p.message}"}
                        for p in problems
                    ]
                )
            branch.refresh_from_db()
        hall = DataHall.objects.get(
            building__campus=branch, building__name=option["building"], name=option["hall"]
        )
        devices = dict(PowerDevice.objects.filter(campus=branch).values_list("name", "id"))
        units = dict(CoolingUnit.objects.filter(campus=branch).values_list("name", "id"))
        pods = dict(Pod.objects.filter(campus=branch).values_list("name", "id"))
        switches = dict(Switch.objects.filter(campus=branch).values_list("name", "id"))
        media = dict(LinkMedium.objects.values_list("slug", "id"))
        model = NodeModel.objects.get(slug=node_model)
        rows = {r.name: r for r in Row.objects.filter(hall=hall)}
        new_rows: dict[float, Row] = {}
        rack_names = set(Rack.objects.filter(campus=branch).values_list("name", flat=True))
        row_names = set(rows)
        reason = f'Placement of {len(option["racks"])} rack(s) of {node_model} in "{hall.name}"'
        check = WriteCheck()
        prefix = f"{option['building']}-{hall.name}-P" if option.get("building") else f"{hall.name}-P"
        width, depth = DEFAULT_RACK_SIZE_M
        for spec in option["racks"]:
            row = rows.get(spec["row"]) if spec["row"] else None
            if row is None and rows:
                # a new row line in a hall that records its rows: a new row for it
                row = new_rows.get(spec["y_m"])
                if row is None:
                    row = Row(hall=hall, name=_unique("R", row_names), x_m=spec["x_m"], y_m=spec["y_m"])
                    _save(row, reason, check)
                    new_rows[spec["y_m"]] = row
            rack = Rack(
                campus=branch,
                hall=hall,
                row=row,
                name=_unique(prefix, rack_names),
                x_m=spec["x_m"],
                y_m=spec["y_m"],
                width_m=width,
                depth_m=depth,
                cooling_type=spec["cooling_type"],
                design_kw=spec["design_kw"],
                cooling_unit_id=units[spec["cooling_unit"]],
                pod_id=pods.get(spec["pod"]) if spec["pod"] else None,
            )
            _save(rack, reason, check)
            width_n = max(2, len(str(spec["nodes"])))
            nodes = [
                Node(rack=rack, node_model=model, name=f"{rack.name}-n{i + 1:0{width_n}d}")
                for i in range(spec["nodes"])
            ]
            for node in nodes:
                node._in_bulk = True  # whole rack-scale domains: checked on the final state below
                _save(node, reason, check)
            feeds = [
                (devices[spec[f"feed_{side.lower()}"]], side)
                for side in "AB"
                if spec[f"feed_{side.lower()}"] is not None  # a campus declared N: one feed
            ]
            more = whips_beside(branch, hall, feeds)
            for upstream_id, side in feeds + more:
                feed = PowerFeed(
                    campus=branch,
                    upstream_id=upstream_id,
                    rack=rack,
                    side=side,
                    # the rack's rating a side, shared by its whips
                    rating_kw=spec["feed_rating_kw"] / (2 if more else 1),
                )
                _save(feed, reason, check)
            for link in spec["links"]:
                cable = Link(
                    campus=branch,
                    pod_id=pods.get(spec["pod"]) if spec["pod"] else None,
                    network="backend",
                    a_rack=rack,
                    b_switch_id=switches[link["switch"]],
                    medium_id=media[link["medium"]],
                    count=link["count"],
                    length_m=link["length_m"],
                    speed_gbps=link["speed_gbps"],
                )
                _save(cable, reason, check)
        # the cables up from the leaves that take the racks, as many as the spine-port check counted
        for up in option.get("uplinks", ()):
            link = (
                Link.objects.filter(campus=branch, a_switch__name=up["switch"], b_switch__name=up["to"])
                .order_by("pk")
                .first()
            )
            link.count += up["count"]
            _save(link, reason, check)
        problems = check.problems()
        if problems:
            raise PlacementInvalid(
                [
                    {"model": p.obj[0], "name": str(p.obj[1]), "reason": f"{p.field}: {p.message}"}
                    for p in problems
                ]
            )
    return branch
