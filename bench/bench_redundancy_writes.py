"""Achieved redundancy on the write path: a write's guard and the reads around it, on generated campuses.

    .venv/bin/python bench/bench_redundancy_writes.py [--sizes 16384,65536]

Per size and design, in a throwaway database (bench/scratch.py): the first GET /redundancy/ (the snapshot
built and both domains searched), the same GET again (kept with the campus's revision), a write (a power
device renamed: the guard searches the campus as written, inside the write's transaction), the GET after
it, which takes the state the guard searched once the write is committed (``state.adopt``), and, for
comparison, the GET after a second write with that state dropped (``state.forget``): what every read after
a write cost before the guard's state was kept. Prints a table; asserts nothing.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["DEBUG"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings.local")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from bench.scratch import in_scratch_database, sizes_argument  # noqa: E402
from campus import state as states  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.interchange.importer import import_campus  # noqa: E402
from campus.models import PowerDevice  # noqa: E402

DESIGNS = [("2N", "N+1"), ("N+1", "N+1")]


def client() -> APIClient:
    from django.contrib.auth.models import Group, User

    user, _ = User.objects.get_or_create(username="bench-planner")
    user.groups.add(Group.objects.get_or_create(name="planner")[0])
    c = APIClient()
    c.force_authenticate(user)
    return c


def timed(call) -> float:
    t = time.perf_counter()
    res = call()
    assert res.status_code < 300, res.content[:300]
    return time.perf_counter() - t


def run(gpus: int) -> list[dict]:
    from campus.catalog_loader import ensure_catalog_and_roles

    ensure_catalog_and_roles()
    c = client()
    return [_design(c, gpus, pr, cr) for pr, cr in DESIGNS]


def _design(c: APIClient, gpus: int, pr: str, cr: str) -> dict:
    campus = import_campus(
        generate_spec(f"Bench levels {gpus} {pr} {cr}", gpus, power_redundancy=pr, cooling_redundancy=cr)
    )
    states.forget()
    levels = f"/api/campuses/{campus.pk}/redundancy/"
    device = PowerDevice.objects.filter(campus=campus).order_by("pk").first()
    rename = f"/api/power-devices/{device.pk}/"
    row: dict = {"gpus": gpus, "design": f"{pr} / {cr}"}
    row["first read"] = timed(lambda: c.get(levels))
    row["read again"] = timed(lambda: c.get(levels))
    row["write"] = timed(lambda: c.patch(rename, {"name": f"{device.name}-1"}, format="json"))
    row["read after write"] = timed(lambda: c.get(levels))
    row["write 2"] = timed(lambda: c.patch(rename, {"name": f"{device.name}-2"}, format="json"))
    states.forget(campus.pk)  # as before: the guard's state not kept
    row["read after write, state dropped"] = timed(lambda: c.get(levels))
    return row


def main() -> None:
    sizes = sizes_argument(__doc__, "16384,65536")
    results = [row for rows in in_scratch_database(run, sizes) for row in rows]
    print(
        f"redundancy levels around writes on {connection.vendor} ({os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}), seconds"
    )
    keys = [k for k in results[0] if k not in ("gpus", "design")]
    print("| GPUs | power / cooling | " + " | ".join(keys) + " |")
    print("|---:|---|" + "---:|" * len(keys))
    for r in results:
        print(f"| {r['gpus']:,} | {r['design']} | " + " | ".join(f"{r[k]:.2f}" for k in keys) + " |")


if __name__ == "__main__":
    main()
