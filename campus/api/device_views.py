"""A device's page and the capacity report:

- ``GET /api/power-devices/{id}/figures/``: rating, load, planning headroom, the headroom left after the worst
  single failure of another device (``campus.analysis.device_figures``), and what the device serves: the
  racks impact mode finds hit when it fails (the same ``impact`` answer, so the two views cannot disagree).
- ``GET /api/campuses/{id}/capacity/``: space, power, cooling and ports per hall and row, each as capacity,
  used, reserved and available (``campus.analysis.capacity_report``).

Both read the campus in service today through the campus state, kept per revision.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import F, Sum
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from campus import models
from campus.analysis.capacity_report import RackRow, capacity_report
from campus.analysis.device_figures import device_figures
from campus.api import analytics
from campus.choices import NodeStatus, Status
from campus.state import campus_state

_SERVING_STATUSES = {NodeStatus.ACTIVE, NodeStatus.SPARE, NodeStatus.MAINTENANCE, NodeStatus.FAILED}


def _no_parameters(request) -> None:
    """These answers take no query parameter: one given is a 400 naming it, as on every other endpoint."""
    unknown = sorted(request.query_params)
    if unknown:
        raise ValidationError({name: ["Unknown query parameter."] for name in unknown})


class DeviceFiguresView(APIView):
    @extend_schema(
        operation_id="power_devices_figures_retrieve",
        summary="A power device's rating, load, headroom after the worst single failure, and what it serves",
        description=(
            "`rated_kw`, `usable_kw` (rated × max_utilization), `load_kw` (input power now), `utilization` "
            "(load / rated) and `headroom_kw` (usable − load); `worst_single_failure`: the other device whose "
            "failure leaves this one the least headroom, with the load and headroom then (null when no "
            "other device's failure moves load onto it); `failures_tried` devices were failed one at a "
            "time (at most 200: `failures_capped`). `serves`: the racks impact mode finds hit when this "
            "device fails (side A, side B, both sides, cooling) and their count. A device not in service "
            "today is a 404 saying so."
        ),
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiResponse(description="No such device in service.")},
        tags=["power"],
    )
    def get(self, request, pk: int):
        _no_parameters(request)
        device = get_object_or_404(models.PowerDevice.objects.select_related("campus"), pk=pk)
        state = campus_state(device.campus)
        if not any(d.id == device.pk for d in state.snap.power_devices):
            raise NotFound(f"Power device {device.name} is not in service today.")
        figures = state.memo(
            ("device_figures", device.pk),
            lambda: device_figures(state.snap, device.pk, state.rollup()).as_dict(),
        )
        hit = analytics.impact(state, [("power", device.pk)])
        racks = hit.get("racks", {})
        lost = {key: list(racks.get(key, [])) for key in ("lost_a", "lost_b", "lost_both", "lost_cooling")}
        every = set().union(*lost.values())
        return Response(
            {
                "id": device.pk,
                "name": device.name,
                "kind": device.kind,
                "kind_label": device.get_kind_display(),
                "campus": {"id": device.campus_id, "name": device.campus.name},
                **figures,
                "serves": {"rack_count": len(every), **lost, "gpus_lost": hit.get("gpus_lost", 0)},
            }
        )


def _rack_rows(campus: models.Campus, it_kw: dict[int, float]) -> list[RackRow]:
    u_by_rack: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    nodes = (
        models.Node.objects.filter(rack__campus=campus)
        .values("rack_id", "status")
        .annotate(u=Sum(F("node_model__rack_units")))
    )
    for n in nodes:
        slot = 1 if n["status"] == NodeStatus.PLANNED else 0
        if n["status"] in _SERVING_STATUSES or slot:
            u_by_rack[n["rack_id"]][slot] += n["u"] or 0
    ends: dict[int, int] = defaultdict(int)
    for link in models.Link.objects.filter(campus=campus, a_rack__isnull=False).values("a_rack_id", "count"):
        ends[link["a_rack_id"]] += link["count"]
    rows = []
    for r in models.Rack.objects.filter(campus=campus).values(
        "id", "hall_id", "row_id", "status", "rack_units", "design_kw"
    ):
        in_service = r["status"] != Status.PLANNED
        used_u, reserved_u = u_by_rack.get(r["id"], (0, 0))
        rows.append(
            RackRow(
                hall_id=r["hall_id"],
                row_id=r["row_id"],
                in_service=in_service,
                rack_units=r["rack_units"],
                design_kw=r["design_kw"],
                it_kw=it_kw.get(r["id"], 0.0) if in_service else 0.0,
                used_u=used_u,
                reserved_u=reserved_u,
                link_ends=ends.get(r["id"], 0),
            )
        )
    return rows


def _switch_ports(campus: models.Campus) -> dict[int, tuple[int, int]]:
    ports: dict[int, int] = defaultdict(int)
    hall_of: dict[int, int] = {}
    for s in models.Switch.objects.filter(campus=campus, hall__isnull=False).values(
        "id", "hall_id", "count", "model__radix"
    ):
        ports[s["hall_id"]] += s["count"] * s["model__radix"]
        hall_of[s["id"]] = s["hall_id"]
    ends: dict[int, int] = defaultdict(int)
    for link in models.Link.objects.filter(campus=campus).values("a_switch_id", "b_switch_id", "count"):
        for sid in (link["a_switch_id"], link["b_switch_id"]):
            if sid in hall_of:
                ends[hall_of[sid]] += link["count"]
    return {hid: (ports[hid], ends.get(hid, 0)) for hid in ports}


class CapacityView(APIView):
    @extend_schema(
        operation_id="campuses_capacity_retrieve",
        summary="Capacity per hall and row: space, power, cooling and ports",
        description=(
            "One entry per hall (building and hall name) with its rows. Each of `space_u` (rack units), "
            "`power_kw`, `cooling_kw` (heat) and `ports` is `{capacity, used, reserved, available, over}`: "
            "reserved is what planned racks and servers hold; `over` is how far used and reserved exceed "
            "the capacity. A row's cooling and port capacity is null: units and switches serve a hall. "
            "docs/capacity-report.md says where each figure comes from."
        ),
        responses={200: OpenApiTypes.OBJECT},
        tags=["campuses"],
    )
    def get(self, request, pk: int):
        _no_parameters(request)
        campus = get_object_or_404(models.Campus, pk=pk)
        state = campus_state(campus)
        it_kw = state.memo(
            ("rack_it_kw",), lambda: {r.id: state.snap.rack_it_kw(r) for r in state.snap.racks}
        )
        halls = [
            (h["id"], f"{h['building__name']} / {h['name']}")
            for h in models.DataHall.objects.filter(building__campus=campus)
            .order_by("building__name", "name")
            .values("id", "name", "building__name")
        ]
        rows = list(
            models.Row.objects.filter(hall__building__campus=campus)
            .order_by("name")
            .values_list("id", "hall_id", "name")
        )
        cooling: dict[int, float] = defaultdict(float)
        for u in (
            models.CoolingUnit.objects.filter(hall__building__campus=campus)
            .exclude(status=Status.PLANNED)
            .values("hall_id", "capacity_kw")
        ):
            cooling[u["hall_id"]] += u["capacity_kw"]
        body = capacity_report(halls, rows, _rack_rows(campus, it_kw), dict(cooling), _switch_ports(campus))
        return Response({"campus": {"id": campus.pk, "name": campus.name}, "halls": body})


urlpatterns = [
    path("power-devices/<int:pk>/figures/", DeviceFiguresView.as_view(), name="powerdevice-figures"),
    path("campuses/<int:pk>/capacity/", CapacityView.as_view(), name="campus-capacity"),
]
