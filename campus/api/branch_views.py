"""The design-branch endpoints of a campus: branch, diff, merge (docs/planning.md)."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path

from django.db.models import Sum
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from campus import branching, designs, jobs
from campus import state as states
from campus.api.redundancy_warnings import (
    STRICT_PARAMETER,
    run_guarded,
    run_with_guard,
    strict_flag,
    with_warnings,
)
from campus.api.serializers_ import branches as b
from campus.api.spec_views import _JOB_ACCEPTED, _flag, _job_accepted
from campus.models import Campus, Job, Node
from twin.api import renderers

# Summary figures the diff reports, by their path in GET /api/campuses/{id}/summary/.
FIGURES = (
    "inventory.gpus",
    "inventory.racks",
    "power.it_mw",
    "power.facility_mw",
    "power.pue",
    "power.grid_capacity_mw",
    "power.grid_headroom_mw",
    "power.headroom_after_failover_mw",
    "power.stranded_mw",
    "power.redundancy_findings_count",
    "power.annual_cost_usd",
    "power.distribution.chain_loss_mw",
    "power.distribution.copper_relative_to_ac",
    "power.distribution.power_capex_usd",
    "cooling.heat_load_mw",
    "cooling.capacity_mw",
    "cooling.plant_usable_capacity_mw",
    "cooling.spare_mw",
    # capex by category from the bill of materials (docs/capex.md)
    "capex.capex_usd.power",
    "capex.capex_usd.cooling",
    "capex.capex_usd.network",
    "capex.capex_usd.compute",
    "capex.capex_usd.building",
    "capex.capex_usd.total",
    "capex.usd_per_mw_it",
)


def _figure(summary: dict, path: str):
    value = summary
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def campus_gpus(campus_id: int) -> int:
    """The GPUs of a campus's servers (one aggregate query)."""
    total = Node.objects.filter(rack__campus_id=campus_id).aggregate(n=Sum("node_model__gpus_per_node"))["n"]
    return int(total or 0)


@functools.cache
def _diff_code() -> str:
    """A digest of the code that makes a diff's body (with ``states.code_digest``, that of its figures)."""
    digest = hashlib.sha256()
    for module in (designs, sys.modules[__name__]):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]


def diff_key(ours_id: int, theirs_id: int) -> str:
    """The shared analytics cache's key of a diff body: both campuses at their current revisions, today (the
    figures are today's), and the code. The revisions are read before the body is made, so a write meanwhile
    leaves the body under the revisions it was read at, where nothing asks for it again."""
    ours_r, theirs_r = states.revision_key(ours_id), states.revision_key(theirs_id)
    return (
        f"diff:{states.code_digest()}:{_diff_code()}:{ours_id}:{ours_r}:{theirs_id}:{theirs_r}:"
        f"{states.today().isoformat()}"
    )


def default_summary(campus: Campus) -> dict:
    """The campus's summary with the default assumptions, as GET summary/ answers it: this process's state
    if it holds the body, else the shared analytics cache (filled by the jobs that write a campus and by
    every summary read), else computed and stored there for the summary page that follows."""
    found = states.default_body(campus.pk, "summary", lambda: states.campus_state(campus))
    if found is None:  # deleted meanwhile
        return states.campus_summary(states.campus_state(campus), **states.default_summary_params())
    return json.loads(found[0])


def figures(theirs: Campus, ours: Campus) -> dict[str, list]:
    a = default_summary(theirs)
    o = default_summary(ours)
    out = {}
    for path in FIGURES:
        t, m = _figure(a, path), _figure(o, path)
        out[path] = [t, m, (m - t) if t is not None and m is not None else None]
    return out


MERGE_ERROR_EXAMPLE = {
    "detail": "The parent changed 1 object(s) the branch changed too.",
    "objects": [{"model": "rack", "name": "R-001", "reason": "changed on the parent since the branch point"}],
}


def _branch_of(parent: Campus, name: str, guard) -> Campus:
    """A branch of ``parent`` judged from the parent's redundancy levels."""
    new = branching.create_branch(parent, name)
    guard.inherit(new.pk, parent.pk)
    return new


class BranchActionsMixin:
    """``branch/``, ``diff/`` and ``merge/`` on a campus (campus.branching)."""

    @extend_schema(
        summary="Branch this design: a copy of every inventory object, linked to this campus",
        description="Copies every inventory row of the campus (new ids, same names, references remapped "
        "inside the copy) into a new campus `name` whose `parent` is this one, and records the branch point "
        "(one fingerprint per object) for a later merge. Planner role. A name already taken is a 400 on "
        "`name`. A campus of up to `TWIN_JOB_THRESHOLD_GPUS` (50,000) GPUs is branched inside the request "
        "(201). A larger one, or any with `?async=1`, is branched by a background job: 202 `{job, url}`; "
        "`GET /api/jobs/{id}/` gives its status, progress and, once succeeded, `campus` (the branch) and "
        "`result` (`id`, `name`, `parent`, `branched_at`); a failed job names its cause and writes nothing. "
        "The branch is judged from its parent's redundancy levels like every write: `warnings` (in the job's "
        "`result`) when it is below the declared level where the parent is not; `?strict=true` makes that a "
        '409 (a failed job) with nothing written (docs/api.md, "Redundancy warnings").',
        parameters=[
            OpenApiParameter(
                "async", OpenApiTypes.BOOL, description="Branch in a background job whatever the size (202)."
            ),
            STRICT_PARAMETER,
        ],
        request=b.BranchRequestSerializer,
        responses={
            201: b.BranchSerializer,
            202: _JOB_ACCEPTED,
            400: OpenApiResponse(description="The field at fault (`name`) and why."),
        },
        examples=[
            OpenApiExample("Request", value={"name": "Campus A – liquid retrofit"}, request_only=True),
            OpenApiExample(
                "Created",
                value={
                    "id": 7,
                    "parent": 3,
                    "name": "Campus A – liquid retrofit",
                    "branched_at": "2026-11-22T23:10:00Z",
                },
                response_only=True,
                status_codes=["201"],
            ),
        ],
        filters=False,
    )
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def branch(self, request, pk=None):
        parent = self.get_object()
        serializer = b.BranchRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        name = serializer.validated_data["name"]
        strict = strict_flag(request)
        if _flag(request.query_params.get("async")) or campus_gpus(parent.pk) > jobs.job_threshold_gpus():
            params = {"parent": parent.pk, "name": name, "strict": strict}
            job = jobs.create_job(Job.Kind.BRANCH, params, user=request.user)
            return _job_accepted(request, job)
        new, warnings = run_with_guard(request, [parent.pk], lambda guard: _branch_of(parent, name, guard))
        body = {"id": new.pk, "parent": parent.pk, "name": new.name, "branched_at": new.branched_at}
        return with_warnings(
            Response(b.BranchSerializer(body).data, status=status.HTTP_201_CREATED), warnings
        )

    @extend_schema(
        summary="Compare this design with another: objects added, removed, changed, and the figures",
        description="Objects are matched by natural key (model and name within the campus; halls by building "
        "and name, rows by hall, nodes by rack; feeds and links by what they connect), never by id. "
        "`theirs` is `against`, `ours` is this campus: `added` are objects only here, `removed` only in "
        "`against`, `changed` lists each differing field as `[theirs, ours]`, references by the referenced "
        "object's name. `figures` are summary figures as `[theirs, ours, ours − theirs]`; the delta is the exact "
        "float difference (it can be ~1e-14 where nothing changed: compare at the precision shown).",
        parameters=[b.DiffQuerySerializer],
        responses={200: b.DiffSerializer},
        examples=[
            OpenApiExample(
                "A rack and a UPS changed",
                response_only=True,
                value={
                    "ours": 7,
                    "theirs": 3,
                    "objects": {
                        "added": [],
                        "removed": [],
                        "changed": [
                            {"model": "rack", "name": "R-001", "fields": {"design_kw": [60.0, 80.0]}},
                            {
                                "model": "powerdevice",
                                "name": "UPS-A",
                                "fields": {"rated_kw": [1000.0, 1250.0]},
                            },
                        ],
                    },
                    "figures": {"power.it_mw": [12.0, 12.0, 0.0], "power.stranded_mw": [1.5, 1.2, -0.3]},
                },
            )
        ],
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def diff(self, request, pk=None):
        ours = self.get_object()
        query = b.DiffQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        against = query.validated_data["against"]
        theirs = Campus.objects.filter(pk=against).first()
        if theirs is None:
            raise ValidationError({"against": [f"No campus {against}."]})
        key = diff_key(ours.pk, theirs.pk)
        found = states.shared_get(key)
        if found is None:
            objects = designs.compare(designs.read_design(ours.pk), designs.read_design(theirs.pk))
            body = {
                "ours": ours.pk,
                "theirs": theirs.pk,
                "objects": objects,
                "figures": figures(theirs, ours),
            }
            text = renderers.dumps(body)
            found = (text, f'"{hashlib.md5(text, usedforsecurity=False).hexdigest()}"')
            states.shared_set(key, found)
        response = HttpResponse(found[0], content_type="application/json")
        response["ETag"] = found[1]
        return response

    @extend_schema(
        summary="Merge this branch into its parent",
        description="Applies what the branch added, removed and changed since its branch point to its parent, "
        "in one transaction, with the checks of every API write (campus.integrity: references, racks inside "
        "their hall and not overlapping, no power loop, whole rack-scale domains). 409 names the objects the "
        "parent changed too since the branch point (nothing is written); 400 names the objects a merge would "
        "break. Both campuses' history records the merge. The branch point moves to now.",
        request=b.MergeRequestSerializer,
        responses={
            200: b.MergeSerializer,
            400: OpenApiResponse(
                b.MergeErrorSerializer, description="Not a branch, or the merge breaks a rule."
            ),
            409: OpenApiResponse(b.MergeErrorSerializer, description="The parent changed the same objects."),
        },
        examples=[
            OpenApiExample("Conflict", value=MERGE_ERROR_EXAMPLE, response_only=True, status_codes=["409"]),
        ],
        filters=False,
    )
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def merge(self, request, pk=None):
        branch = self.get_object()
        b.MergeRequestSerializer(data=request.data if isinstance(request.data, dict) else {}).is_valid(
            raise_exception=True
        )
        if branch.parent_id is None:
            return Response(
                {"detail": "This campus is not a branch (it has no parent).", "objects": []},
                status=status.HTTP_400_BAD_REQUEST,
            )
        user = request.user if request.user.is_authenticated else None
        try:
            result, warnings = run_guarded(
                request, [branch.parent_id], lambda: branching.merge(branch, user=user)
            )
        except branching.MergeConflict as exc:
            return Response({"detail": exc.message, "objects": exc.objects}, status=status.HTTP_409_CONFLICT)
        except branching.MergeInvalid as exc:
            return Response(
                {"detail": exc.message, "objects": exc.objects}, status=status.HTTP_400_BAD_REQUEST
            )
        except ValueError as exc:
            return Response({"detail": str(exc), "objects": []}, status=status.HTTP_400_BAD_REQUEST)
        return with_warnings(Response(b.MergeSerializer(result).data), warnings)
