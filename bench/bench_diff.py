"""Diff benchmark: GET /api/campuses/{branch}/diff/?against={base} of a large campus in the database after
one rack edit on a branch of it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/twin REDIS_URL=redis://127.0.0.1:6379/1 \\
        .venv/bin/python bench/bench_diff.py --campus NAME

Branches the campus (``create_branch``, timed; the branch is kept and taken again by the next run: deleting
a 1M-GPU campus through the ORM takes longer than the benchmark), lowers one rack's design power on it, then
times, wall and CPU seconds of this process:

- the parts of the diff: each design read (``read_design``), the object comparison, sorting every common key
  as the comparison did before it sorted only the differing ones, and the figures computed as they were
  before (two summaries of fresh states, outside the shared analytics cache);
- the whole request through the API client: cold (no state in this process, nothing in the shared cache),
  again (the states and rendered summaries held), and as another process finds it (no state here, both
  summaries in the shared cache), and with only the base's summary shared (as after the job that wrote
  it, or anyone's summary read of the base).

The shared cache (REDIS_URL, or the file cache) is cleared between cases: use a cache of your own. Prints
a table; asserts nothing.
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
from django.core.cache import caches  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from campus import branching, designs  # noqa: E402
from campus import state as states  # noqa: E402
from campus.models import Campus, Rack  # noqa: E402

rows: list[tuple[str, float, float]] = []


def timed(label: str, work):
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    rows.append((label, time.perf_counter() - wall, time.process_time() - cpu))
    print(f"{label:62} {rows[-1][1]:8.2f} {rows[-1][2]:8.2f}  (load {os.getloadavg()[0]:.1f})", flush=True)
    return out


def cold() -> None:
    states.forget()
    caches[states.SHARED_CACHE].clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campus", required=True, help="name of a campus in the database")
    args = parser.parse_args()
    base = Campus.objects.get(name=args.campus)
    name = f"{base.name} – bench diff"
    user, _ = get_user_model().objects.get_or_create(username="bench-diff", defaults={"is_superuser": True})
    client = APIClient()
    client.force_authenticate(user)
    print(f"load average {os.getloadavg()[0]:.1f}; campus {base.pk} {base.name!r}")
    print(f"{'':62} {'wall s':>8} {'cpu s':>8}")
    branch = Campus.objects.filter(name=name, parent=base).first()
    if branch is None:
        branch = timed("branch (create_branch)", lambda: branching.create_branch(base, name))
    rack = Rack.objects.filter(campus=branch).order_by("name").first()
    rack.design_kw = rack.design_kw * 0.9
    rack.save()
    url = f"/api/campuses/{branch.pk}/diff/?against={base.pk}"

    cold()
    ours = timed("read_design(branch)", lambda: designs.read_design(branch.pk))
    theirs = timed("read_design(base)", lambda: designs.read_design(base.pk))
    objects = timed("compare (differing keys sorted)", lambda: designs.compare(ours, theirs))
    assert len(objects["changed"]) == 1, objects["changed"]

    def sort_all():
        for model in designs.model_names():
            mine, other = ours.objects.get(model, {}), theirs.objects.get(model, {})
            sorted(mine.keys() & other.keys(), key=designs.key_text)

    timed("  (before: every common key sorted)", sort_all)
    ours = theirs = None  # noqa: F841 - the designs are let go before the summaries
    timed(
        "figures as before: summaries of fresh states, not shared",
        lambda: [states.campus_summary(states.campus_state(c)) for c in (base, branch)],
    )

    def get():
        response = client.get(url)
        assert response.status_code == 200, response.content
        return response

    cold()
    timed("GET diff/ cold (no state, nothing shared)", get)
    timed("GET diff/ again (states and summaries held)", get)
    states.forget()
    timed("GET diff/ in another process (both summaries shared)", get)
    cold()
    timed("  warm(base): the job's analysis of the base", lambda: states.warm(base))
    timed("GET diff/ with the base's summary shared", get)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
