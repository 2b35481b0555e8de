"""Scenarios, runs and schedules: querysets, serializers and filtersets; the work is in simulations.runs."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from campus.state import in_service_snapshot
from simulations import runs
from simulations.choices import ScenarioKind
from simulations.models import Run, Scenario, Schedule
from twin.api.mixins import BRIEF_PARAMETER, QueryParametersMixin
from twin.api.viewsets import TwinModelViewSet

from . import filtersets
from .serializers import (
    ReplicaResultSerializer,
    RunRequestSerializer,
    RunSerializer,
    ScenarioSerializer,
    ScheduleSerializer,
)

MAX_COMPARE = 10

_SCENARIO_EXAMPLE = OpenApiExample(
    "Failures over 30 days with in-memory recovery",
    value={
        "campus": 1,
        "kind": "failure_cascade",
        "name": "30 days, in-memory recovery",
        "params": {"duration_days": 30, "recovery": "in_memory"},
    },
    request_only=True,
)
_BAD_PARAMS_EXAMPLE = OpenApiExample(
    "A bad parameter is named by its path",
    value={"params": {"caps[0].cap_fraction": ["Input should be less than or equal to 1.5"]}},
    response_only=True,
    status_codes=["400"],
)


@extend_schema_view(
    list=extend_schema(summary="List scenarios", parameters=[BRIEF_PARAMETER]),
    retrieve=extend_schema(summary="Get one scenario", parameters=[BRIEF_PARAMETER]),
    create=extend_schema(
        summary="Create a scenario",
        description="`params: {}` is valid for every kind (every parameter has a default). A bad parameter "
        'comes back as 400 `{"params": {"<path>": ["message"]}}`. A JSON list creates several scenarios in '
        "one atomic request (errors keyed by list index).",
        examples=[_SCENARIO_EXAMPLE, _BAD_PARAMS_EXAMPLE],
    ),
    update=extend_schema(summary="Replace a scenario"),
    partial_update=extend_schema(summary="Update fields of a scenario"),
    destroy=extend_schema(summary="Delete a scenario with its runs and schedules"),
)
class ScenarioViewSet(TwinModelViewSet):
    queryset = Scenario.objects.select_related("campus", "owner")
    serializer_class = ScenarioSerializer
    filterset_class = filtersets.ScenarioFilterSet
    search_fields = ("name", "description")
    ordering_fields = ("id", "name", "kind", "created", "updated")

    def perform_create(self, serializer) -> None:
        with transaction.atomic():
            serializer.save(owner=self.request.user)

    @extend_schema(
        summary="Scenario kinds with their parameter schema and defaults",
        responses=inline_serializer(
            "ScenarioKind",
            {
                "kind": serializers.CharField(),
                "label": serializers.CharField(),
                "schema": serializers.DictField(),
                "defaults": serializers.DictField(),
                "stochastic": serializers.BooleanField(),
                "default_replicas": serializers.IntegerField(),
                "metrics": serializers.DictField(
                    help_text="Per metric or series name: label, unit, description, higher_is_better "
                    "(true, false, or null where more is neither better nor worse)."
                ),
                "causes": serializers.DictField(help_text="Labels of the causes of interruptions."),
            },
            many=True,
        ),
    )
    @action(detail=False, methods=["get"], pagination_class=None, filter_backends=[])
    def kinds(self, request):
        return Response(runs.kinds())

    @extend_schema(
        summary="Run the scenario (Monte Carlo on the workers)",
        description="Queues a run of `replicas` independent replicas (1-1000; omitted: the kind's "
        "`default_replicas`, 1 for a deterministic kind, else 10) and answers 202 with it; poll "
        "`/api/runs/{id}/` for status and progress. With `sweep`, the run covers every point of a grid of one or "
        "two parameters with `replicas` replicas at each (points x replicas at most `TWIN_SWEEP_MAX_REPLICAS`, "
        "5,000 by default) and its summary has one entry per point under `points`. The same seed "
        "on the same scenario and inventory gives the same results. A deterministic kind (power capping, a grid limit without random generator starts) runs "
        "one replica whatever `replicas` says. The run reads what is in service on `as_of` (YYYY-MM-DD, default "
        "today; stored on the run): equipment retired by then or not yet in service does not count, as in the "
        "analytics' `?as_of=`; a day on which no GPU of the campus is in service is a 400 on `as_of`. Parameters the campus cannot run that day (it changed since the "
        'scenario was saved) are a 400 `{"params": {"<path>": ["message"]}}`. With `confidence_target` the run '
        "stops adding replicas once the confidence interval of a metric's mean (default `ettr`) is within "
        "±`relative_half_width` of it, `replicas` being the cap; `confidence` on the run shows the half-width "
        "so far and, once finished, the replicas used (docs/runs.md, Replicas to a confidence target).",
        request=RunRequestSerializer,
        responses={202: RunSerializer},
        examples=[
            OpenApiExample(
                "100 replicas, fixed seed", value={"replicas": 100, "seed": 42}, request_only=True
            ),
            OpenApiExample(
                "A sweep: checkpoint interval x recovery, 20 replicas at each of 6 points",
                value={
                    "replicas": 20,
                    "seed": 7,
                    "sweep": {
                        "parameters": [
                            {"name": "checkpoint_interval_minutes", "start": 30, "stop": 240, "num": 3},
                            {"name": "recovery", "values": ["checkpoint_restart", "in_memory"]},
                        ]
                    },
                },
                request_only=True,
            ),
            OpenApiExample(
                "Replicas until the ETTR's mean is known to ±0.5 % (95 %), at most 1,000",
                value={"replicas": 1000, "confidence_target": {"relative_half_width": 0.005}},
                request_only=True,
            ),
            OpenApiExample(
                "A bad sweep is named by its place",
                value={
                    "sweep.parameters[0].name": ["'checkpoint_minutes' is not a parameter of failure_cascade"]
                },
                response_only=True,
                status_codes=["400"],
            ),
        ],
    )
    @action(detail=True, methods=["post"])
    def run(self, request, pk=None):
        scenario = self.get_object()
        body = RunRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # The request's own fields first (the grid's names, values, points and bound), then the campus.
        sweep = body.validated_data.get("sweep")
        spec = None
        if sweep is not None:
            try:
                spec = runs.sweeps.normalise(
                    scenario.kind,
                    scenario.params,
                    sweep,
                    body.validated_data.get("replicas")
                    or runs.default_replicas(scenario.kind, scenario.params),
                )
            except runs.SweepError as exc:
                raise ValidationError(exc.errors) from None
        # The campus may have changed since the scenario was saved (a GPU model or cooling unit removed or
        # retired): the parameters, then each swept value, tried on the campus in service on the run's day (as
        # the run reads it), before anything is stored.
        as_of = body.validated_data.get("as_of") or timezone.localdate()
        snap = in_service_snapshot(scenario.campus, as_of)
        nothing = runs.in_service_errors(scenario.kind, snap, as_of)
        if nothing:
            raise ValidationError({"as_of": nothing})
        errors = runs.campus_params_errors(scenario.kind, scenario.params, snap)
        if errors:
            raise ValidationError({"params": errors})
        if spec is not None:
            errors = runs.sweep_campus_errors(scenario.kind, scenario.params, spec, snap)
            if errors:
                raise ValidationError(errors)
        try:
            run = runs.launch_run(
                scenario,
                replicas=body.validated_data.get("replicas"),
                seed=body.validated_data.get("seed"),
                user=request.user,
                sweep=sweep,
                as_of=as_of,
                confidence_target=body.validated_data.get("confidence_target"),
            )
        except (runs.SweepError, runs.ConfidenceTargetError) as exc:
            raise ValidationError(exc.errors) from None
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


def _parse_ids(raw: str | None) -> list[int]:
    if not raw:
        raise ValidationError({"ids": ["give two or more run ids, e.g. ids=1,2"]})
    try:
        ids = [int(part) for part in raw.split(",") if part.strip()]
    except ValueError:
        raise ValidationError({"ids": ["run ids must be integers separated by commas"]}) from None
    ids = list(dict.fromkeys(ids))
    if not 2 <= len(ids) <= MAX_COMPARE:
        raise ValidationError({"ids": [f"give between 2 and {MAX_COMPARE} distinct run ids"]})
    return ids


@extend_schema_view(
    list=extend_schema(summary="List runs", description="Filter by scenario, campus, status, kind, flagged."),
    retrieve=extend_schema(summary="Get one run: status, progress and, once finished, its summary"),
)
class RunViewSet(QueryParametersMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Run.objects.select_related("scenario", "created_by").defer("snapshot")
    serializer_class = RunSerializer
    filterset_class = filtersets.RunFilterSet
    search_fields = ("scenario_name", "scenario__name", "error")
    ordering_fields = ("id", "created", "started", "finished", "status", "progress", "replicas")
    checked_query_actions = QueryParametersMixin.checked_query_actions | {"replicas"}

    @extend_schema(
        summary="Cancel a queued or running run",
        description="Chunks stop before their next replica (or inside one, at its next progress report). "
        "409 if the run already finished.",
        request=None,
        responses={
            200: RunSerializer,
            409: OpenApiResponse(OpenApiTypes.OBJECT, description="The run already finished."),
        },
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self.get_object()
        try:
            run = runs.cancel_run(run.pk)
        except runs.RunFinishedError as exc:
            return Response({"detail": str(exc), "status": run.status}, status=status.HTTP_409_CONFLICT)
        return Response(RunSerializer(run).data)

    @extend_schema(
        summary="A run's time series",
        description="Without `metric`: the metrics the run has series for, with their `labels` as a person "
        "reads them. With it: the mean across replicas with 5th/95th percentile bands, thinned to at most 2,000 "
        "points (`full=1`: every point), and the series' `label`.",
        parameters=[
            OpenApiParameter("metric", OpenApiTypes.STR, description="Series name, e.g. ettr"),
            OpenApiParameter(
                "full", OpenApiTypes.BOOL, description="Every point instead of the display copy"
            ),
        ],
        responses=OpenApiTypes.OBJECT,
        examples=[
            OpenApiExample(
                "ETTR series",
                value={
                    "run": 7,
                    "metric": "ettr",
                    "label": "Goodput (ETTR) (fraction)",
                    "full": False,
                    "points_total": 200,
                    "points": 3,
                    "t_hours": [0, 360, 720],
                    "values": [1, 0.95, 0.93],
                    "p5": [1, 0.9, 0.88],
                    "p95": [1, 0.99, 0.97],
                },
                response_only=True,
            )
        ],
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def timeseries(self, request, pk=None):
        run = self.get_object()
        metric = request.query_params.get("metric")
        available = runs.series_metrics(run)
        if not metric:
            return Response(
                {"run": run.pk, "metrics": available, "labels": runs.series_labels(run, available)}
            )
        full = request.query_params.get("full", "").lower() in {"1", "true", "yes"}
        data = runs.timeseries(run, metric, full=full)
        if data is None:
            choices = ", ".join(available) if available else "none yet (the run has not finished)"
            raise ValidationError({"metric": [f"unknown metric {metric!r}; this run has: {choices}"]})
        return Response(data)

    @extend_schema(
        summary="The stored replica results of a run", responses=ReplicaResultSerializer(many=True)
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def replicas(self, request, pk=None):
        run = self.get_object()
        queryset = run.replica_results.defer("series").order_by("index")
        page = self.paginate_queryset(queryset)
        data = ReplicaResultSerializer(page if page is not None else queryset, many=True).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    @extend_schema(
        summary="Compare runs side by side",
        description="Summaries of 2-10 runs of one kind of scenario (runs of different kinds are a 400 on `ids`); "
        "the first id is the baseline every other run is compared with (difference of the means, in % of the "
        "baseline, or in percentage points for a share and none where the mean crossed zero, and whether the "
        "95% intervals are apart); `inputs` lists the inputs in which the runs differ.",
        parameters=[OpenApiParameter("ids", OpenApiTypes.STR, required=True, description="e.g. 3,7")],
        responses=OpenApiTypes.OBJECT,
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def compare(self, request):
        ids = _parse_ids(request.query_params.get("ids"))
        found = {r.pk: r for r in self.get_queryset().filter(pk__in=ids)}
        missing = [i for i in ids if i not in found]
        if missing:
            raise ValidationError({"ids": [f"unknown run ids: {', '.join(map(str, missing))}"]})
        kinds = {found[i].kind for i in ids}
        if len(kinds) > 1:
            labels = dict(ScenarioKind.choices)
            which = "; ".join(f"run {i} is {labels.get(found[i].kind, found[i].kind)}" for i in ids)
            raise ValidationError(
                {
                    "ids": [
                        f"only runs of one kind of scenario can be compared (their metrics differ): {which}"
                    ]
                }
            )
        return Response(runs.compare_runs([found[i] for i in ids]))


@extend_schema_view(
    list=extend_schema(summary="List schedules", parameters=[BRIEF_PARAMETER]),
    retrieve=extend_schema(summary="Get one schedule", parameters=[BRIEF_PARAMETER]),
    create=extend_schema(
        summary="Create a schedule (admin)",
        examples=[
            OpenApiExample(
                "Nightly, flag when goodput drops below 90%",
                value={
                    "scenario": 1,
                    "name": "nightly grid cut",
                    "crontab": "0 2 * * *",
                    "replicas": 50,
                    "thresholds": [
                        {"metric": "ettr", "op": "<", "value": 0.9},
                        {"metric": "campus.power.grid_headroom_mw", "op": "<", "value": 0},
                    ],
                },
                request_only=True,
            )
        ],
    ),
    update=extend_schema(summary="Replace a schedule (admin)"),
    partial_update=extend_schema(summary="Update fields of a schedule (admin)"),
    destroy=extend_schema(summary="Delete a schedule (admin); its runs are kept"),
)
class ScheduleViewSet(TwinModelViewSet):
    queryset = Schedule.objects.select_related("scenario", "owner", "periodic_task")
    serializer_class = ScheduleSerializer
    filterset_class = filtersets.ScheduleFilterSet
    search_fields = ("name",)
    ordering_fields = ("id", "name", "created", "updated")
    write_role = "admin"

    def perform_create(self, serializer) -> None:
        with transaction.atomic():
            serializer.save(owner=self.request.user)
