"""Export benchmark: GET /api/campuses/{id}/export/ of a campus in the database, YAML and JSON.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin .venv/bin/python bench/bench_export.py --campus NAME

Per format: the body rendered whole as the view did before it streamed (``export_campus`` then
YAMLRenderer / JSONRenderer), and the streamed response read through the API client: the time to its first
piece and to its end, wall and CPU seconds of this process, and the size of the largest piece. Prints a
table; asserts nothing (timings depend on the machine and its load).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["DEBUG"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from rest_framework.renderers import JSONRenderer  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from campus.api.spec_views import YAMLRenderer  # noqa: E402
from campus.interchange.exporter import export_campus  # noqa: E402
from campus.models import Campus  # noqa: E402


def clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = clock()
    return wall - start[0], cpu - start[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campus", required=True, help="name of a campus in the database")
    parser.add_argument("--formats", default="yaml,json")
    parser.add_argument("--streamed-only", action="store_true", help="skip the whole rendering")
    args = parser.parse_args()
    campus = Campus.objects.get(name=args.campus)
    user, _ = get_user_model().objects.get_or_create(username="bench-export", defaults={"is_superuser": True})
    client = APIClient()
    client.force_authenticate(user)
    print(f"load average {os.getloadavg()[0]:.1f}; campus {campus.pk} {campus.name!r}")
    print(
        f"{'format':6} {'how':8} {'first byte s (cpu)':>20} {'total s (cpu)':>18} {'MB':>7} {'largest piece':>14}"
    )
    for fmt in args.formats.split(","):
        if not args.streamed_only:
            whole_rendering(campus, fmt)
        streamed(client, campus, fmt)
        print(f"load average {os.getloadavg()[0]:.1f}")


def whole_rendering(campus: Campus, fmt: str) -> None:
    start = clock()
    spec = export_campus(campus)
    renderer = YAMLRenderer() if fmt == "yaml" else JSONRenderer()
    whole = renderer.render(spec)
    wall, cpu = since(start)
    print(
        f"{fmt:6} {'whole':8} {wall:9.1f} ({cpu:6.1f}) {wall:9.1f} ({cpu:6.1f}) {len(whole) / 1e6:7.1f} {len(whole):14,}"
    )
    del spec, whole


def streamed(client: APIClient, campus: Campus, fmt: str) -> None:
    start = clock()
    response = client.get(f"/api/campuses/{campus.pk}/export/?format={fmt}")
    size = largest = 0
    first = headers = None
    for piece in response.streaming_content:
        if headers is None:
            headers = since(start)
        if first is None and piece:
            first = since(start)
        size += len(piece)
        largest = max(largest, len(piece))
    wall, cpu = since(start)
    print(
        f"{fmt:6} {'streamed':8} {first[0]:9.1f} ({first[1]:6.1f}) {wall:9.1f} ({cpu:6.1f}) "
        f"{size / 1e6:7.1f} {largest:14,}   (headers {headers[0]:.2f} s)"
    )


if __name__ == "__main__":
    main()
