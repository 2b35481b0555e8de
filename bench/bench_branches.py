"""Design-branch benchmark: branch, diff and merge generated 1k, 10k and 100k-GPU campuses.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin .venv/bin/python bench/bench_branches.py [--sizes 1000,100000]

Like bench_import.py it runs against a throwaway database next to the one DATABASE_URL names and drops it
afterwards. Per size: import a generated campus (the import time is printed for scale), branch it (``create_branch``: every inventory row copied,
the branch point fingerprinted), change one rack and one device on the branch, diff the branch against its
parent (objects by natural key, then the summary figures of both: cold, then again with the summaries
cached as the dashboard finds them), and merge it back.
Prints a table; asserts nothing (timings depend on the machine and its load).
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

from bench.scratch import in_scratch_database, sizes_argument  # noqa: E402
from campus import branching, designs  # noqa: E402
from campus import state as states  # noqa: E402
from campus.api.branch_views import figures  # noqa: E402
from campus.interchange.generate import generate_spec  # noqa: E402
from campus.interchange.importer import import_campus  # noqa: E402
from campus.models import PowerDevice, Rack  # noqa: E402


def run(gpus: int) -> dict:
    spec = generate_spec(f"Bench {gpus}", gpus)
    t_import = time.perf_counter()
    parent = import_campus(spec)
    started = time.perf_counter()
    branch = branching.create_branch(parent, f"Bench {gpus} – branch")
    branched = time.perf_counter()
    rows = sum(len(objs) for objs in designs.read_design(branch.pk).objects.values())
    rack = Rack.objects.filter(campus=branch).order_by("name").first()
    rack.design_kw = rack.design_kw * 0.9
    rack.save()
    device = PowerDevice.objects.filter(campus=branch, kind="ups").order_by("name").first()
    device.rated_kw = device.rated_kw * 1.1
    device.save()
    states.forget()
    t0 = time.perf_counter()
    objects = designs.compare(designs.read_design(branch.pk), designs.read_design(parent.pk))
    t1 = time.perf_counter()
    figures(parent, branch)
    t2 = time.perf_counter()
    # again, as the dashboard asks it: the summaries are cached while the campuses are unchanged
    designs.compare(designs.read_design(branch.pk), designs.read_design(parent.pk))
    figures(parent, branch)
    warm = time.perf_counter() - t2
    t2 = time.perf_counter()
    result = branching.merge(branch)
    t3 = time.perf_counter()
    return {
        "gpus": gpus,
        "rows": rows,
        "import_s": started - t_import,
        "branch_s": branched - started,
        "diff_objects_s": t1 - t0,
        "diff_figures_s": t2 - t1,
        "changed": len(objects["changed"]),
        "diff_warm_s": warm,
        "merge_s": t3 - t2,
        "merged": result["changed"],
    }


def main() -> None:
    sizes = sizes_argument(__doc__, "1000,10000,100000")
    vendor = connection.vendor
    results = in_scratch_database(run, sizes)
    print(f"design branches on {vendor} ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    header = (
        f"{'GPUs':>8} {'rows':>7} {'import s':>9} {'branch s':>9} {'diff objects s':>15} {'diff figures s':>15} "
        f"{'diff total s':>13} {'diff warm s':>12} {'merge s':>8}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r['gpus']:>8,} {r['rows']:>7,} {r['import_s']:>9.2f} {r['branch_s']:>9.2f} {r['diff_objects_s']:>15.2f} "
            f"{r['diff_figures_s']:>15.2f} {r['diff_objects_s'] + r['diff_figures_s']:>13.2f} "
            f"{r['diff_warm_s']:>12.2f} {r['merge_s']:>8.2f}"
        )


if __name__ == "__main__":
    main()
