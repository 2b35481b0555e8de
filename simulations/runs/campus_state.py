"""The campus state a run computed on, and whether runs side by side computed on the same one.

``dispatch.start`` builds a run's snapshot once and records beside it (``Run.campus_state``):

- ``version``: the campus's inventory version when the snapshot was read, as the analytics cache keys its
  states and the summary's shared cache keys its bodies (``campus.versions.campus_version``: row count
  and newest ``last_updated`` of every table the snapshot reads, the catalog included), as its digest
  (``version_digest``). Any write to the campus's rows or the catalog changes it (a typed PUE, a rack, a
  price...), so two runs with the same version, campus and day read the same inventory;
- ``as_of``: the day whose in-service equipment the snapshot holds;
- key figures of that snapshot: ``it_mw`` (servers, fabric, rack extras and other IT at full GPU TDP, the
  summary's ``power.design_it_mw`` for that day), ``gpus``, ``pue`` and ``pue_source`` (the PUE the
  engine uses: the run's own ``pue`` parameter, else the campus's typed ``design_pue``, else the plant model's
  annual energy-weighted PUE in the campus's weather; ``campus.analysis.facility.campus_pue``),
  ``design_pue`` (the typed one, or None), ``price_usd_per_kwh`` and ``grid_capacity_mw``.
"""

from __future__ import annotations

import logging
from typing import Any

from campus.analysis.facility import campus_pue
from campus.analysis.snapshot import CampusSnapshot
from campus.analysis.summary import campus_it
from campus.snapshot_adapter import build_snapshot
from campus.versions import campus_version, version_digest
from simulations.models import Run

log = logging.getLogger(__name__)

# Figures compared between runs (beside the version and the day), in the order a note names them.
FIGURES = ("it_mw", "gpus", "pue", "design_pue", "price_usd_per_kwh", "grid_capacity_mw")
# Build-and-check rounds before the snapshot is taken as is while the campus keeps changing.
_ROUNDS = 3


def inventory_version(campus_id: int) -> str:
    """The digest of the campus's analytics version (what the summary cache and conditional GETs key on)."""
    return version_digest(campus_version(campus_id))


def snapshot_with_version(campus_id: int, as_of) -> tuple[CampusSnapshot, str]:
    """The campus's snapshot of ``as_of`` and the inventory version it was read at: the version is read
    before and after the build, and the build repeated (a few times at most) when a write landed between."""
    version = inventory_version(campus_id)
    for _ in range(_ROUNDS):
        snap = build_snapshot(campus_id, as_of)
        after = inventory_version(campus_id)
        if after == version:
            break
        version = after
    return snap, version


def _r(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(float(value), digits)


def record(campus_id: int, snap: CampusSnapshot, version: str, params: Any) -> dict[str, Any]:
    """What ``Run.campus_state`` holds (module docstring). A figure that cannot be computed is None (logged):
    the run still runs, the version still tells states apart."""
    state: dict[str, Any] = {
        "campus": campus_id,
        "version": version,
        "as_of": snap.as_of.isoformat() if snap.as_of else None,
        "design_pue": snap.design_pue,
        "price_usd_per_kwh": _r(snap.price_usd_per_kwh),
        "grid_capacity_mw": _r(snap.grid_capacity_kw / 1000.0),
        "gpus": sum(sum(snap.rack_gpus(r).values()) for r in snap.racks),
        "it_mw": None,
        "pue": None,
        "pue_source": None,
    }
    try:
        state["it_mw"] = _r(campus_it(snap).it_kw / 1000.0, 9)
        resolved = campus_pue(snap, getattr(params, "pue", None))
        state["pue"] = _r(resolved.pue)
        state["pue_source"] = resolved.source
    except Exception:
        log.warning("campus %s: the run's campus figures could not be computed", campus_id, exc_info=True)
    return state


def _key(run: Run) -> tuple | None:
    state = run.campus_state
    if not state:
        return None
    return (run.campus_id, state.get("version"), state.get("as_of"))


def _what_differs(base: dict, other: dict, base_campus: int, other_campus: int) -> list[str]:
    out = []
    if base_campus != other_campus:
        out.append(f"campus {base_campus} vs {other_campus}")
    if base.get("as_of") != other.get("as_of"):
        out.append(f"day {base.get('as_of')} vs {other.get('as_of')}")
    for name in FIGURES:
        if base.get(name) != other.get(name):
            out.append(f"{name} {base.get(name)} vs {other.get(name)}")
    if base.get("version") != other.get("version") and len(out) == 0:
        out.append("the inventory changed (no key figure differs)")
    return out


def comparison(runs: list[Run]) -> dict[str, Any]:
    """Whether the runs computed on the baseline's (the first run's) campus state: ``same`` (True, False,
    or None when a run has no recorded state), the ids that ``differ`` and those ``unknown``, per differing
    run what differs, and a ``note`` that says it when they do not all share one state."""
    base = runs[0]
    base_key = _key(base)
    differ: list[int] = []
    unknown: list[int] = []
    changes: dict[str, list[str]] = {}
    for r in runs:
        key = _key(r)
        if key is None or base_key is None:
            unknown.append(r.pk)
        elif r.pk != base.pk and key != base_key:
            differ.append(r.pk)
            changes[str(r.pk)] = _what_differs(base.campus_state, r.campus_state, base.campus_id, r.campus_id)
    same = False if differ else (None if unknown else True)
    note = None
    if differ:
        which = ", ".join(f"run {i} ({'; '.join(changes[str(i)])})" for i in differ)
        note = (
            f"Computed on a different campus state than the baseline run {base.pk}: {which}. Their differences "
            "may come from the campus, not only from the scenario."
        )
    elif unknown:
        note = (
            f"No campus state is recorded for run{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(str, unknown))} (not started, or run before runs recorded it): whether the campus "
            "changed between the runs is not known."
        )
    return {"same": same, "differ": differ, "unknown": unknown, "changes": changes, "note": note}


def same_as(base: Run, run: Run) -> bool | None:
    """Whether ``run`` computed on the campus state of ``base`` (None: one of them has none recorded)."""
    a, b = _key(base), _key(run)
    if a is None or b is None:
        return None
    return a == b
