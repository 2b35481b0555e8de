"""Health checks: a liveness probe, a readiness probe and a deep check.

``GET /api/health/`` (liveness) answers from the process alone: a plain Django view, no database query, no
REST framework, so it costs less than any other path and a load balancer or an orchestrator can poll it every
second to learn whether the process still answers. ``GET /api/health/ready/`` (readiness) also runs one
``SELECT 1``: whether this process can serve requests that need the database (503 when it cannot).
``GET /api/health/deep/`` also connects to the broker and asks the workers to answer, which takes up to the
broker's and the workers' timeouts (about 1-3 s).

The liveness probe is not a REST framework view, so drf-spectacular does not see it: ``LIVENESS_OPERATION``
is added to the schema by ``twin.api.schema.document_liveness``.
"""

from django.db import connection
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from twin.celery import app
from twin.worker_heartbeat import live_workers

LIVE_METHODS = ("GET", "HEAD", "OPTIONS")

LIVENESS_OPERATION = {
    "operationId": "health_retrieve",
    "summary": "Liveness: the process answers (no database query)",
    "description": "For load balancers and orchestrators, cheap enough to poll every second. Whether the "
    "database answers is `/api/health/ready/`; the broker and the workers, `/api/health/deep/`.",
    "tags": ["health"],
    "security": [{}],
    "responses": {
        "200": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {"status": {"type": "string", "enum": ["ok"]}},
                        "required": ["status"],
                    }
                }
            },
            "description": "The process answers.",
        }
    },
}


# A probe changes nothing: an unsafe method gets the JSON 405, not the CSRF page.
@csrf_exempt
def health(request):
    """Liveness: ``200 {"status": "ok"}`` whenever the process answers."""
    if request.method not in LIVE_METHODS:
        response = JsonResponse({"detail": f'Method "{request.method}" not allowed.'}, status=405)
    elif request.method == "OPTIONS":
        response = HttpResponse(status=200)
    else:
        return JsonResponse({"status": "ok"})
    response["Allow"] = ", ".join(LIVE_METHODS)
    return response


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # any failure is the answer, not an error of this endpoint
        return {"ok": False, "vendor": connection.vendor, "error": str(exc)}


def _broker_and_workers() -> tuple[dict, dict]:
    broker = {"url": app.conf.broker_url.split("@")[-1] if app.conf.broker_url else ""}
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        broker["ok"] = True
    except Exception as exc:
        broker.update(ok=False, error=str(exc))
        return broker, {"ok": False, "count": 0, "names": []}
    try:
        replies = app.control.inspect(timeout=1.0).ping() or {}
    except Exception:
        # kombu's filesystem transport has no broadcast; workers there report through their heartbeat file.
        replies = {}
    if not replies:
        replies = {name: {"ok": "pong"} for name in live_workers()}
    return broker, {"ok": bool(replies), "count": len(replies), "names": sorted(replies)}


Readiness = inline_serializer(
    "Readiness",
    {"status": serializers.CharField(), "database": serializers.DictField()},
)


@extend_schema(
    summary="Readiness: the process answers and its database takes a query",
    description="One `SELECT 1`: 200 when it succeeds, 503 (with the database's error) when it does not.",
    responses={200: Readiness, 503: Readiness},
)
@api_view(["GET"])
@authentication_classes([])
@permission_classes([AllowAny])
@throttle_classes([])
def health_ready(request):
    database = _database()
    return Response(
        {"status": "ok" if database["ok"] else "down", "database": database},
        status=200 if database["ok"] else 503,
    )


Health = inline_serializer(
    "Health",
    {
        "status": serializers.CharField(),
        "database": serializers.DictField(),
        "broker": serializers.DictField(),
        "workers": serializers.DictField(),
    },
)


@extend_schema(
    summary="Health of the database, the broker and the workers (slow: asks the workers)",
    description="200 with `status: ok`, or `degraded` when no worker answers; 503 when the database or the "
    "broker is down.",
    responses={200: Health, 503: Health},
)
@api_view(["GET"])
@authentication_classes([])
@permission_classes([AllowAny])
@throttle_classes([])
def health_deep(request):
    database = _database()
    broker, workers = _broker_and_workers()
    ok = database["ok"] and broker["ok"]
    return Response(
        {
            "status": "ok" if ok and workers["ok"] else ("degraded" if ok else "down"),
            "database": database,
            "broker": broker,
            "workers": workers,
        },
        status=200 if ok else 503,
    )
