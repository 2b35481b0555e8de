"""A page of racks through the API in process: one client, the whole request path (token, filters, page,
serializer, renderer), against a generated campus in a throwaway database.

    PYTHONPATH=. .venv/bin/python bench/bench_racks_page.py [--sizes 100000] [--requests 200]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin PYTHONPATH=. .venv/bin/python bench/bench_racks_page.py

Per size: import a generated campus, then time ``GET /api/racks/?campus=<id>&limit=50&offset=<o>`` at the
first, a middle and the last page in turn, a rack's detail, and the trivial endpoint (a GPU model's
detail, as ``bench_api_load.py`` names it). Prints the median and the 90th percentile of each, and the median CPU
time of the process; asserts nothing (timings depend on the machine and its load).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["DEBUG"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from bench.scratch import in_scratch_database  # noqa: E402
from campus.catalog_loader import ensure_catalog_and_roles  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.interchange.importer import import_campus  # noqa: E402
from campus.models import GPUModel, Rack  # noqa: E402


def client() -> APIClient:
    user, _ = User.objects.get_or_create(username="bench-viewer")
    user.groups.add(Group.objects.get_or_create(name="viewer")[0])
    token, _ = Token.objects.get_or_create(user=user)
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return c


def timings_ms(c: APIClient, urls: list[str], requests: int) -> tuple[float, float, float]:
    """Median and 90th percentile of the wall time, and the median CPU time of this process (on SQLite the
    database's work included), in ms: the CPU time holds still when other work shares the machine."""
    for url in urls:  # warm: the first request of each shape builds what a process keeps
        assert c.get(url).status_code == 200, url
    wall, cpu = [], []
    for i in range(requests):
        url = urls[i % len(urls)]
        started, started_cpu = time.perf_counter(), time.process_time()
        response = c.get(url)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        assert response.status_code == 200, url
    wall.sort()
    return (
        statistics.median(wall) * 1000,
        wall[int(0.9 * (len(wall) - 1))] * 1000,
        statistics.median(cpu) * 1000,
    )


def run(gpus: int, requests: int) -> list[tuple]:
    ensure_catalog_and_roles()
    campus = import_campus(generate_spec(f"Bench racks {gpus}", gpus))
    racks = Rack.objects.filter(campus=campus).count()
    c = client()
    pages = [
        f"/api/racks/?campus={campus.pk}&limit=50&offset={offset}"
        for offset in (0, (racks // 2 // 50) * 50, max(0, racks - 50))
    ]
    detail = [f"/api/racks/{Rack.objects.filter(campus=campus).order_by('pk').first().pk}/"]
    rows = []
    for label, urls in (
        ("page of 50 racks", pages),
        ("one rack", detail),
        ("trivial (a GPU model)", [f"/api/gpu-models/{GPUModel.objects.order_by('pk').first().pk}/"]),
    ):
        rows.append((gpus, racks, label, *timings_ms(c, urls, requests)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="GPU counts, comma-separated")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per row")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = in_scratch_database(lambda n: run(n, args.requests), sizes)
    print(f"{'GPUs':>9} {'racks':>6}  {'request':<22} {'median ms':>9} {'p90 ms':>7} {'CPU ms':>7}")
    for rows in results:
        for gpus, racks, label, median, p90, cpu in rows:
            print(f"{gpus:>9,} {racks:>6,}  {label:<22} {median:>9.2f} {p90:>7.2f} {cpu:>7.2f}")


if __name__ == "__main__":
    main()
