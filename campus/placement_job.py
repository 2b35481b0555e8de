"""Capacity placement as a background job: ``"async": true`` on POST /api/campuses/{id}/placement/
(docs/placement.md, "Large campuses: the placement as a job").

An expansion proposal re-runs the placement on the grown campus round after round (a new snapshot and its
figures each time): about 20 s on a 100k-GPU campus, too long for a request. The request then stores a job
(``Job.Kind.PLACEMENT``, its parameters: the campus and the placement request) and answers 202 with the
job's URL; a worker runs ``run`` and stores the placement's answer as the job's ``result`` (the jobs
API shapes it on the way out as the request shapes its body), reporting the proposal's progress on the
job. Nothing is written to the campus.

``placement`` is the one path both take, the request inside its thread and the job in a worker.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from campus import measured
from campus import state as states
from campus.analysis.placement import PlacementRequest, RowGeo, place
from campus.analysis.placement.proposal import propose
from campus.measured import DEFAULT_MARGIN
from campus.models import Campus, NodeModel, Row
from twin.api.renderers import dumps


class PlacementJobError(Exception):
    """A placement job that cannot run as asked: ``field`` (or None) and ``detail``."""

    def __init__(self, field: str | None, detail: str) -> None:
        super().__init__(detail)
        self.field, self.detail = field, detail


def rows_by_hall(campus_id: int) -> dict[int, list[RowGeo]]:
    out: dict[int, list[RowGeo]] = {}
    for pk, hall_id, name, x, y in Row.objects.filter(hall__building__campus_id=campus_id).values_list(
        "id", "hall_id", "name", "x_m", "y_m"
    ):
        out.setdefault(hall_id, []).append(RowGeo(pk, hall_id, name, x, y))
    return out


def placement(
    state: states.CampusState,
    campus_id: int,
    req: PlacementRequest,
    always_propose: bool,
    progress: Callable[[float, str], None] | None = None,
) -> dict:
    """The placement of ``req`` on the campus's state, with the expansion proposal when nothing fits (or
    ``always_propose``). ``ValueError`` names a field of the request it cannot take."""
    rows = rows_by_hall(campus_id)
    result = place(state.snap, req, state.rack_size, rows)
    if always_propose or not result["feasible"]:
        result["proposal"] = propose(state.snap, req, state.rack_size, rows, progress)
    result.update(state.basis)  # the existing racks' load it stood on (docs/live.md)
    return result


def job_params(campus_id: int, data: dict) -> dict:
    """The job's parameters from the request's validated data."""
    return {
        "campus": campus_id,
        "node_model": data["node_model"].slug,
        "racks": data["racks"],
        "nodes_per_rack": data.get("nodes_per_rack"),
        "hall": data.get("hall"),
        "propose": bool(data.get("propose")),
        "basis": data.get("basis", "design"),
        "margin": data.get("margin", DEFAULT_MARGIN),
    }


def run(params: dict, report: Callable[[float, str], None]) -> dict:
    """The job's work: the placement's answer (JSON values only), as the request's body holds it before
    its serializer shapes it."""
    campus = Campus.objects.filter(pk=params.get("campus")).first()
    if campus is None:
        raise PlacementJobError(
            "campus", f"No campus {params.get('campus')}: it was deleted before the job ran."
        )
    if not NodeModel.objects.filter(slug=params.get("node_model")).exists():
        raise PlacementJobError("node_model", f"No node model {params.get('node_model')} in the catalog.")
    report(0.02, "reading the campus")
    state = states.campus_state(campus)
    hall = params.get("hall")
    if hall is not None and all(h.id != hall for h in state.snap.halls):
        raise PlacementJobError(
            "hall", f"Hall {hall} is not in service today; placement reads the campus as in service today."
        )
    req = PlacementRequest(params["node_model"], params["racks"], params.get("nodes_per_rack"), hall)
    state = measured.on_basis(
        state, {"basis": params.get("basis"), "margin": params.get("margin", DEFAULT_MARGIN)}
    )
    report(0.05, "placing")
    try:
        result = placement(
            state,
            campus.pk,
            req,
            params.get("propose", False),
            lambda share, stage: report(0.1 + 0.88 * share, stage),
        )
    except ValueError as exc:
        raise PlacementJobError(None, str(exc)) from None
    # as the answer renders it: tuples become lists, numbers stay numbers
    return json.loads(dumps(result))
