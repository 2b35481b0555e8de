"""Capacity-placement benchmark: POST /api/campuses/{id}/placement/ on generated 10k and 100k-GPU campuses.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin .venv/bin/python bench/bench_placement.py [--sizes 10000,100000]

Like bench_branches.py it runs against a throwaway database next to the one DATABASE_URL names and drops it
afterwards. Per size: import a generated campus, then time placement queries through the API in-process:
the first (cold: the campus snapshot is built and the failover scenarios are swept), then the same query
again and other queries on the warm snapshot (a small fit, a large infeasible one with its expansion proposal,
40 racks with a proposal, one hall), and applying
the best small option as a branch. Prints a table; asserts nothing (timings depend on the machine and its
load).
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
from campus.models import DataHall  # noqa: E402

NODE = "hgx-h100-8"


def client() -> APIClient:
    from django.contrib.auth.models import Group, User

    user, _ = User.objects.get_or_create(username="bench-planner")
    user.groups.add(Group.objects.get_or_create(name="planner")[0])
    c = APIClient()
    c.force_authenticate(user)
    return c


def timed(c: APIClient, campus_id: int, body: dict) -> tuple[float, dict, int]:
    t = time.perf_counter()
    res = c.post(f"/api/campuses/{campus_id}/placement/", body, format="json")
    return time.perf_counter() - t, res.json(), res.status_code


def run(gpus: int) -> list[dict]:
    from campus.catalog_loader import ensure_catalog_and_roles

    ensure_catalog_and_roles()
    campus = import_campus(generate_spec(f"Bench placement {gpus}", gpus))
    c = client()
    states.forget()
    hall = DataHall.objects.filter(building__campus=campus).order_by("pk").last()
    queries = [
        ("cold: 1 rack x 1 node", {"node_model": NODE, "racks": 1, "nodes_per_rack": 1}),
        ("warm: same again", {"node_model": NODE, "racks": 1, "nodes_per_rack": 1}),
        ("warm: 4 racks, default nodes", {"node_model": NODE, "racks": 4}),
        ("warm: 200 racks (infeasible)", {"node_model": NODE, "racks": 200}),
        ("warm: 40 racks, proposal", {"node_model": NODE, "racks": 40, "propose": True}),
        ("warm: one hall", {"node_model": NODE, "racks": 1, "nodes_per_rack": 1, "hall": hall.pk}),
        (
            "apply as branch",
            {"node_model": NODE, "racks": 1, "nodes_per_rack": 1, "apply_as_branch": f"Bench placed {gpus}"},
        ),
    ]
    out = []
    for label, body in queries:
        seconds, res, code = timed(c, campus.pk, body)
        out.append(
            {
                "gpus": gpus,
                "query": label,
                "seconds": seconds,
                "status": code,
                "feasible": res.get("feasible"),
                "binding": res.get("binding_constraint"),
                "options": len(res.get("options", [])),
                "proposal_usd": (res.get("proposal") or {}).get("capex_usd"),
            }
        )
    return out


def main() -> None:
    sizes = sizes_argument(__doc__, "10000,100000")
    vendor = connection.vendor
    results = [row for rows in in_scratch_database(run, sizes) for row in rows]
    print(f"capacity placement on {vendor} ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    header = (
        f"{'GPUs':>8}  {'query':<30} {'s':>6} {'HTTP':>5} {'feasible':>9} {'binding':>13} {'options':>8} "
        f"{'proposal $':>12}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r['gpus']:>8,}  {r['query']:<30} {r['seconds']:>6.2f} {r['status']:>5} {r['feasible']!s:>9} "
            f"{r['binding']!s:>13} {r['options']:>8} "
            f"{'' if r['proposal_usd'] is None else format(r['proposal_usd'], ',.0f'):>12}"
        )


if __name__ == "__main__":
    main()
