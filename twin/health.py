"""Health checks: a cheap liveness probe for load balancers and a deep check for humans and monitoring.

``GET /api/health/`` answers from the process alone plus one ``SELECT 1`` (no broker round-trip, no worker
broadcast), so a load balancer can poll it every second. ``GET /api/health/deep/`` also connects to the broker
and asks the workers to answer, which takes up to the broker's and the workers' timeouts (about 1-3 s).
"""

from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # any failure is the answer, not an error of this endpoint
        return {"ok": False, "vendor": connection.vendor, "error": str(exc)}


def _broker_and_workers() -> tuple[dict, dict]:
    from twin.celery import app

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
        from twin.worker_heartbeat import live_workers

        replies = {name: {"ok": "pong"} for name in live_workers()}
    return broker, {"ok": bool(replies), "count": len(replies), "names": sorted(replies)}


@extend_schema(
    summary="Liveness: the process answers and its database takes a query",
    responses=inline_serializer(
        "Liveness",
        {"status": serializers.CharField(), "database": serializers.DictField()},
    ),
)
@api_view(["GET"])
@authentication_classes([])
@permission_classes([AllowAny])
@throttle_classes([])
def health(request):
    database = _database()
    return Response(
        {"status": "ok" if database["ok"] else "down", "database": database},
        status=200 if database["ok"] else 503,
    )


@extend_schema(
    summary="Health of the database, the broker and the workers (slow: asks the workers)",
    responses=inline_serializer(
        "Health",
        {
            "status": serializers.CharField(),
            "database": serializers.DictField(),
            "broker": serializers.DictField(),
            "workers": serializers.DictField(),
        },
    ),
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
