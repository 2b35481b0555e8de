"""The campus's measurements read from Prometheus over its HTTP API (docs/live.md, "Prometheus").

A source maps PromQL queries to inventory objects: each entry's series name their object by a label
(``name_label``, one query serves every rack: ``sum by (rack) (dcgm_power_usage_watts{campus="x"})``) or
by a fixed ``object_name``. The sync reads ``/api/v1/query_range`` from where it stopped, in chunks whose
ends fall on 5-minute bucket boundaries, rolls each chunk up (``measurements.rollup``) and stores it with
the new ``synced_until`` in one transaction: a source that goes down mid-sync loses what it has not
answered and nothing else, and the next sync starts again there. The last, unfinished bucket is read again
whole by the next sync (``synced_until`` stays at its start), and a bucket written again replaces the one
held, so nothing counts twice.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

import requests
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from campus import measurements_store as store
from campus import state as states
from campus.analysis import measurements as m
from campus.models import Campus, PrometheusSource

CHUNK = timedelta(hours=6)
TIMEOUT_S = 30.0
_LABEL = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
ENTRY_FIELDS = {"query", "object_kind", "name_label", "object_name", "metric"}


class MappingError(ValueError):
    def __init__(self, index: int, field: str, message: str) -> None:
        super().__init__(f"mapping[{index}].{field}: {message}")
        self.index, self.field, self.message = index, field, message


def check_mapping(mapping: object) -> list[dict]:
    """The mapping, or a ``MappingError`` naming the entry and field at fault."""
    if not isinstance(mapping, list) or not mapping:
        raise MappingError(0, "mapping", "a non-empty list of entries")
    if len(mapping) > 1000:
        raise MappingError(1000, "mapping", "at most 1000 entries")
    out = []
    for i, entry in enumerate(mapping):
        if not isinstance(entry, dict):
            raise MappingError(i, "entry", "an object")
        unknown = set(entry) - ENTRY_FIELDS
        if unknown:
            raise MappingError(i, sorted(unknown)[0], "unknown field")
        query = entry.get("query")
        if not isinstance(query, str) or not query.strip() or len(query) > 4000:
            raise MappingError(i, "query", "a PromQL expression of 1 to 4000 characters")
        if entry.get("object_kind") not in m.OBJECT_KINDS:
            raise MappingError(i, "object_kind", f"one of {', '.join(m.OBJECT_KINDS)}")
        if entry.get("metric") not in m.METRICS:
            raise MappingError(i, "metric", f"one of {', '.join(m.METRICS)}")
        if entry["object_kind"] not in m.METRIC_SPECS[entry["metric"]].kinds:
            raise MappingError(i, "metric", f"{entry['metric']} is not measured on a {entry['object_kind']}")
        label, name = entry.get("name_label"), entry.get("object_name")
        if (label is None) == (name is None):
            raise MappingError(i, "name_label", "give name_label or object_name, one of them")
        if label is not None and (not isinstance(label, str) or not _LABEL.match(label)):
            raise MappingError(i, "name_label", "a Prometheus label name")
        if name is not None and (not isinstance(name, str) or not 0 < len(name) <= 128):
            raise MappingError(i, "object_name", "1 to 128 characters")
        out.append({k: entry[k] for k in ENTRY_FIELDS if k in entry})
    return out


def mapping_templates(campus_name: str, kinds: set[str]) -> list[dict]:
    """Mapping entries for the series the emulator serves (``campus.emulator``; the names follow DCGM's
    and the node exporter's conventions, base units in the name), one per metric and object kind present
    (``kinds``): a starting point to edit for a site's own series names."""
    c = campus_name.replace("\\", "\\\\").replace('"', '\\"')
    out = [
        {
            "query": f'sum by (rack) (dcgm_power_usage_watts{{campus="{c}"}})',
            "object_kind": "rack",
            "name_label": "rack",
            "metric": "power_w",
        },
        {
            "query": f'campus_power_watts{{campus="{c}"}}',
            "object_kind": "campus",
            "object_name": campus_name,
            "metric": "power_w",
        },
        {
            "query": f'campus_pue_ratio{{campus="{c}"}}',
            "object_kind": "campus",
            "object_name": campus_name,
            "metric": "pue",
        },
        {
            "query": f'outdoor_temperature_celsius{{campus="{c}"}}',
            "object_kind": "campus",
            "object_name": campus_name,
            "metric": "dry_bulb_c",
        },
    ]
    families = {
        "device": (
            m.POWER_DEVICE_KINDS,
            [("device_power_watts", "power_w"), ("device_output_power_watts", "power_out_w")],
        ),
        "unit": (
            m.COOLING_UNIT_KINDS,
            [
                ("cooling_unit_heat_watts", "heat_kw"),
                ("cooling_unit_supply_temperature_celsius", "supply_temp_c"),
                ("cooling_unit_return_temperature_celsius", "return_temp_c"),
                ("cooling_unit_flow_litres_per_minute", "flow_lpm"),
            ],
        ),
        "plant": (
            m.COOLING_PLANT_KINDS,
            [("cooling_plant_power_watts", "power_w"), ("cooling_plant_heat_watts", "heat_kw")],
        ),
    }
    for label, (group, series) in families.items():
        for kind in sorted(kinds & set(group)):
            for name, metric in series:
                query = f'{name}{{campus="{c}", kind="{kind}"}}'
                if metric == "heat_kw":  # served in W, stored in kW
                    query = f"{query} / 1000"
                out.append({"query": query, "object_kind": kind, "name_label": label, "metric": metric})
    return out


def public_url(url: str) -> str:
    """The URL without its user and password (what the API may show)."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _session() -> requests.Session:
    s = requests.Session()
    token = getattr(settings, "TWIN_PROMETHEUS_TOKEN", "")
    if token:
        s.headers["Authorization"] = f"Bearer {token}"
    return s


def query_range(
    session: requests.Session, url: str, query: str, start: datetime, end: datetime, step_s: float
) -> list[dict]:
    r = session.get(
        url.rstrip("/") + "/api/v1/query_range",
        params={"query": query, "start": start.timestamp(), "end": end.timestamp(), "step": step_s},
        timeout=TIMEOUT_S,
    )
    body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    if r.status_code != 200 or body.get("status") != "success":
        raise SourceError(f"Prometheus answered {r.status_code}: {body.get('error', '')[:300]}")
    return body["data"]["result"]


class SourceError(RuntimeError):
    pass


def samples_of(entry: dict, result: list[dict], unmatched: set[str]) -> list[m.Sample]:
    spec = m.METRIC_SPECS[entry["metric"]]
    factor, metric = spec.factor, spec.stored
    out = []
    for series in result:
        name = entry.get("object_name") or series.get("metric", {}).get(entry.get("name_label", ""))
        if not name:
            unmatched.add(str(series.get("metric", {}))[:200])
            continue
        for t, v in series.get("values", []):
            value = float(v) * factor
            if value == value and spec.low <= value <= spec.high:  # NaN and out-of-range samples dropped
                out.append(
                    m.Sample(entry["object_kind"], name, metric, datetime.fromtimestamp(float(t), UTC), value)
                )
    return out


def sync(source: PrometheusSource, now: datetime | None = None) -> dict:
    """Read the source from where it stopped up to ``now``; see the module doc."""
    url = getattr(settings, "TWIN_PROMETHEUS_URL", "")
    if not url:
        return {"status": "no Prometheus URL configured (TWIN_PROMETHEUS_URL)"}
    now = now or timezone.now()
    step_s = float(getattr(settings, "TWIN_PROMETHEUS_STEP_S", 60))
    backfill = timedelta(hours=float(getattr(settings, "TWIN_PROMETHEUS_BACKFILL_HOURS", 24)))
    start = m.bucket_start(source.synced_until or (now - backfill))
    campus = Campus.objects.get(pk=source.campus_id)
    known = m.objects(states.designed_state(campus).snap)
    session = _session()
    stored = chunks = 0
    unmatched: set[str] = set()
    unknown: set[str] = set()
    error = ""
    # Prometheus answers at most 11,000 points per series: a chunk holds at most 10,000 steps, whole buckets
    chunk = min(CHUNK, timedelta(seconds=max(m.BUCKET_S, int(step_s * 10000) // m.BUCKET_S * m.BUCKET_S)))
    while start < now:
        end = min(start + chunk, now)
        try:
            samples = []
            for entry in source.mapping:
                # the point at ``end`` belongs to the next chunk
                result = query_range(
                    session, url, entry["query"], start, end - timedelta(milliseconds=1), step_s
                )
                samples += samples_of(entry, result, unmatched)
        except (requests.RequestException, ValueError, KeyError, SourceError) as exc:
            error = f"{type(exc).__name__}: {_redacted(str(exc), url)}"[:512]
            break
        kept = [s for s in samples if len(known.get((s.object_kind, s.object_name), ())) == 1]
        unknown |= {f"{s.object_kind} {s.object_name}" for s in samples} - {
            f"{s.object_kind} {s.object_name}" for s in kept
        }
        # an unfinished last bucket is read again whole next time
        done = end if end == m.bucket_start(end) else m.bucket_start(end)
        with transaction.atomic():
            stored += store.store(source.campus_id, m.rollup(kept))["buckets"]
            PrometheusSource.objects.filter(pk=source.pk).update(
                synced_until=done, last_error="", last_attempt=now
            )
        source.synced_until = done
        chunks += 1
        start = end if end == done else now
    if error:
        PrometheusSource.objects.filter(pk=source.pk).update(last_error=error, last_attempt=now)
        source.last_error = error
    return {
        "status": "error" if error else "ok",
        "error": error,
        "chunks": chunks,
        "buckets": stored,
        "synced_until": source.synced_until,
        "unmatched_series": sorted(unmatched)[:20],
        "unknown_objects": sorted(unknown)[:20],
    }


def _redacted(text: str, url: str) -> str:
    parts = urlsplit(url)
    for secret in (parts.password, parts.username, getattr(settings, "TWIN_PROMETHEUS_TOKEN", "")):
        if secret:
            text = text.replace(secret, "***")
    return text


def sync_all() -> dict[int, dict]:
    return {source.campus_id: sync(source) for source in PrometheusSource.objects.all()}
