"""Capacity placement of a campus: where new racks of a node model fit (docs/planning.md)."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from campus import jobs, measured
from campus import state as states
from campus.analysis.placement import PlacementRequest
from campus.api.redundancy_warnings import STRICT_PARAMETER, run_with_guard, with_warnings
from campus.api.serializers_ import placement as p
from campus.models import DataHall, Job
from campus.placement_branch import PlacementInvalid, apply_as_branch
from campus.placement_job import job_params, placement
from twin.api.exceptions import field_error

PLACEMENT_EXAMPLE = {
    "feasible": True,
    "binding_constraint": "power",
    "binding": {
        "constraint": "power",
        "hall": "H1",
        "hall_id": 1,
        "building": "B1",
        "building_id": 1,
        "level": "pdu",
        "element": "B1-H1-R05-PDU-A1",
        "detail": "19.0 kW of rack IT left before B1-H1-R05-PDU-A1 reaches its planning limit after B1-H1-SWGR-B01 "
        "(21.5 kW at its input)",
    },
    "options": [
        {
            "hall": "H1",
            "hall_id": 1,
            "building": "B1",
            "building_id": 1,
            "racks": [
                {
                    "x_m": 20.4,
                    "y_m": 15.0,
                    "row": "R05",
                    "feed_a": "B1-H1-R05-PDU-A1",
                    "feed_b": "B1-H1-R05-PDU-B1",
                    "cooling_unit": "B1-H1-CDU-01",
                    "pod": "POD-01",
                    "cooling_type": "direct-to-chip",
                    "design_kw": 10.2,
                    "feed_rating_kw": 15.0,
                    "nodes": 1,
                    "links": [
                        {
                            "switch": "POD-01-LEAF-B1H1-RAIL1",
                            "count": 1,
                            "length_m": 14.0,
                            "medium": "sr",
                            "speed_gbps": 400.0,
                        }
                    ],
                }
            ],
            "headroom_after": {
                "power_kw": 18.972,
                "power_level": "pdu",
                "power_element": "B1-H1-R05-PDU-A1",
                "power_element_headroom_kw": 21.508,
                "power_failure": {"kind": "power", "id": 22, "name": "B1-H1-SWGR-B01"},
                "cooling_kw": 42.81,
                "cooling_level": "cooling unit",
                "cooling_element": "B1-H1-CRAH-01",
                "cooling_element_headroom_kw": 8.562,
                "floor_positions": 0,
                "fabric_ports": 14,
            },
        }
    ],
    "short_at_design": [],
}


class PlacementActionsMixin:
    """``placement/`` on a campus (campus.analysis.placement, campus.placement_branch)."""

    @extend_schema(
        summary="Where new racks of a node model fit, with the design redundancy intact",
        description="Per hall: free floor positions (existing row lines, then new rows behind, with aisle "
        "clearance), an air-cooling density limit, free back-end leaf ports for the NICs, cooling with each "
        "named group's units out as the campus's cooling_redundancy declares (N+1 or undeclared the largest, "
        "2N the larger half), and an A/B feed pair whose every upstream device and utility feed stays "
        "within its planning limit after the worst single failure (each side carrying 100 % of the new racks); "
        "a campus declared N keeps no spare: cooling within capacity, one feed (`feed_b` null). "
        "Up to 3 options, most power headroom left first. `binding_constraint` is one of floor_space, "
        "rack_density, fabric_ports, cooling, power, grid (the campus grid connection at the peak hour); "
        "`binding` names the level and element. `short_at_design` lists the elements already short at design "
        "load with nothing placed (cooling units, plants, pools and plant loops short of the declared cooling "
        "redundancy, power devices and utility feeds beyond their planning limit after their worst single "
        "failure, the grid), each with `level`, `element` and `shortfall_kw`; when nothing fits and one is "
        "short, the most short is the `binding` one. When nothing fits (or with `propose`), `proposal` is the "
        "cheapest set of additions that makes the request fit (leaves, spines and optics; cooling units and "
        "plant modules; PDU, UPS, transformer, switchgear and substation modules; utility feed and grid "
        "capacity; new rows), each with the constraint it lifts and its capex, with the total capex and the "
        "time to power (the longest catalog lead time), and where the racks go once built. With "
        "`apply_as_branch` the best option (when nothing fits: the proposal, additions and racks) is written "
        "to a new design branch of that name (`branch`, 201), judged against the campus's declared "
        "redundancy like every write: `warnings` when the branch falls below it (`?strict=true`: a 409 and no "
        'branch; docs/api.md, "Redundancy warnings"). With `async` the placement runs as a background job '
        "(202, the job's `url`; its `result` is this answer, its `progress` the proposal's): a proposal on a "
        "100k-GPU campus takes tens of seconds. `basis=measured` places against the existing racks at their "
        "measured peak plus `margin` (docs/live.md); the answer states its `basis`. Planner role.",
        parameters=[STRICT_PARAMETER],
        request=p.PlacementRequestSerializer,
        responses={
            200: p.PlacementSerializer,
            201: OpenApiResponse(p.PlacementSerializer, description="Applied as a new branch (`branch`)."),
            202: OpenApiResponse(
                p.PlacementJobSerializer, description="`async`: the placement runs as a job (`url`)."
            ),
        },
        examples=[
            OpenApiExample(
                "Request",
                value={"node_model": "hgx-h100-8", "racks": 1, "nodes_per_rack": 1},
                request_only=True,
            ),
            OpenApiExample("One option", value=PLACEMENT_EXAMPLE, response_only=True, status_codes=["200"]),
        ],
        filters=False,
    )
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def placement(self, request, pk=None):
        campus = self.get_object()
        serializer = p.PlacementRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        hall_id = data.get("hall")
        if hall_id is not None and not DataHall.objects.filter(pk=hall_id, building__campus=campus).exists():
            raise ValidationError({"hall": [f"No hall {hall_id} in this campus."]})
        state = states.campus_state(campus)
        if hall_id is not None and all(h.id != hall_id for h in state.snap.halls):
            raise ValidationError(
                {
                    "hall": [
                        f"Hall {hall_id} is not in service today; placement reads the campus as in service today."
                    ]
                }
            )
        if data["async"]:
            job = jobs.create_job(Job.Kind.PLACEMENT, job_params(campus.pk, data), request.user)
            url = request.build_absolute_uri(reverse("job-detail", args=[job.pk]))
            return Response(
                {"job": job.pk, "url": url}, status=status.HTTP_202_ACCEPTED, headers={"Location": url}
            )
        req = PlacementRequest(data["node_model"].slug, data["racks"], data.get("nodes_per_rack"), hall_id)
        state = measured.on_basis(state, data)
        try:
            result = placement(state, campus.pk, req, data["propose"])
        except ValueError as exc:
            raise field_error(exc, rename={"hall_id": "hall"}) from None
        name = data.get("apply_as_branch")
        if name is None:
            return Response(p.PlacementSerializer(result).data)
        option, additions = (result["options"] or [None])[0], None
        if option is None and result["proposal"]["feasible"]:
            option, additions = result["proposal"]["option"], result["proposal"]["additions"]
        if option is None:
            raise ValidationError(
                {
                    "apply_as_branch": [
                        f"Nothing fits ({result['binding']['detail']}) and no addition makes it fit "
                        f"({result['proposal']['detail']}); no branch was created."
                    ]
                }
            )
        try:
            branch, warnings = run_with_guard(
                request,
                [campus.pk],
                lambda guard: apply_as_branch(campus, name, option, req.node_model, additions, guard),
            )
        except PlacementInvalid as exc:
            return Response(
                {"detail": "The placed racks break an inventory rule.", "objects": exc.objects},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return with_warnings(
            Response(
                p.PlacementSerializer({**result, "branch": branch.pk}).data, status=status.HTTP_201_CREATED
            ),
            warnings,
        )
