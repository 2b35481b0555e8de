"""Writes that take a campus below its declared redundancy: found once, for every write path.

A ``RedundancyGuard`` is opened inside a write's transaction before anything is written. It keeps, for each
campus the write may touch (``watch``), the level each of its racks achieves per domain (``power``,
``cooling``: N, N+1 or 2N, ``campus.analysis.redundancy_levels``) from the campus state as it stands; after
the write, still inside the transaction, ``finish`` reads which campuses the write changed (their
``revision`` grew: the database triggers see every path alike) and works their levels out again from the
rows as written. A write warns when it takes a rack further below its domain's declared level than it was
(its deficit, declared rank less achieved rank, grows; a new rack below the level counts from none): a
level falling below the declared one, a declaration raised above what is built, a rack added where its
chain cannot carry it. Each warning names the campus, the domain, the level declared, the campus's level
before and after, the racks and GPUs newly at risk and the elements whose loss now costs them (single
failures, or pairs of one out for maintenance and one failed). With ``strict`` a warning refuses the
write: ``RedundancyShortfall`` is raised inside the transaction, which rolls back.

Used by the API's inventory and catalog writes (bulk included), the admin, the spec import and generation
(background jobs included), branch creation (a branch is judged from its parent's levels: ``inherit``), a
placement or expansion proposal applied as a branch, and the branch merge (docs/api.md, "Redundancy
warnings").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date

from django.db import transaction

from campus import models
from campus.analysis.redundancy_levels import DOMAINS, RANK, DomainLevel, domain_level
from campus.state import CampusState, adopt, campus_state, revision_key, today

CODE = "redundancy_below_declared"


class RedundancyShortfall(Exception):
    """A strict write that would take a campus below its declared redundancy (``warnings``: what it would)."""

    def __init__(self, warnings: list[dict]):
        super().__init__("; ".join(w["message"] for w in warnings))
        self.warnings = warnings


@dataclass
class _Levels:
    declared: dict[str, str]
    racks: dict[str, dict[int, str]]  # domain -> rack -> level
    achieved: dict[str, str]


def _deficit(declared: str, level: str) -> int:
    return max(0, RANK.get(declared, -1) - RANK[level])


# The levels of a campus as a committed write left them, by revision key (``state.revision_key``) and day: the next
# write's "before" without a second pair search. Filled only once the write's transaction has committed and
# while the campus still holds that key, so a rolled-back write never leaves its levels here.
_committed: OrderedDict[tuple[int, str, date], _Levels] = OrderedDict()
_committed_lock = threading.Lock()
MAX_COMMITTED = 8


def levels_of(campus_id: int, keep: bool) -> tuple[_Levels, dict[str, DomainLevel]] | None:
    """The levels of the campus as the database holds it now, its declared domains only (None: no such
    campus). ``keep``: the state may be kept in the campus state's cache (only before a write: after it,
    inside the transaction, the rows may still be rolled back)."""
    found = _levels_and_state(campus_id, keep)
    return None if found is None else found[:2]


def _levels_and_state(
    campus_id: int, keep: bool
) -> tuple[_Levels, dict[str, DomainLevel], CampusState] | None:
    campus = models.Campus.objects.filter(pk=campus_id).first()
    if campus is None:
        return None
    state = campus_state(campus, keep=keep)
    snap = state.snap
    declared = {"power": snap.power_redundancy or "", "cooling": snap.cooling_redundancy or ""}
    found = {d: domain_level(snap, d) for d in DOMAINS if declared[d]}
    levels = _Levels(
        declared=declared,
        racks={d: dict(found[d].rack_level) if d in found else {} for d in DOMAINS},
        achieved={d: found[d].achieved if d in found else "" for d in DOMAINS},
    )
    return levels, found, state


def _levels_before(campus_id: int) -> _Levels | None:
    key = revision_key(campus_id)
    with _committed_lock:
        hit = _committed.get((campus_id, key or "", today()))
    if hit is not None:
        return hit
    found = levels_of(campus_id, keep=True)
    return found[0] if found is not None else None


def _keep_after_commit(campus_id: int, levels: _Levels, state: CampusState) -> None:
    """Once the write is committed, its levels (the next write's "before") and the state they were found on
    (the next read's, with its pair search: ``state.adopt``), while the campus still holds the revision."""
    key, day = revision_key(campus_id), today()

    def keep() -> None:
        if key is None or revision_key(campus_id) != key:
            return  # written again since: these levels are not the campus's
        adopt(state, campus_id)
        with _committed_lock:
            _committed[(campus_id, key, day)] = levels
            while len(_committed) > MAX_COMMITTED:
                _committed.popitem(last=False)

    transaction.on_commit(keep)


@dataclass
class RedundancyGuard:
    """The levels of the campuses a write touches, before and after it (see the module's docstring)."""

    strict: bool = False
    before: dict[int, _Levels | None] = field(default_factory=dict)
    revisions: dict[int, int] = field(default_factory=dict)
    warnings: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.revisions = dict(models.Campus.objects.values_list("id", "revision"))

    def watch(self, campus_ids: Iterable[int | None]) -> None:
        """Keep the levels of these campuses as they stand, before the write touches them: the write's
        scope. A campus the write creates is judged from nothing; one that existed and is not watched is
        not judged."""
        for cid in campus_ids:
            if cid is None or cid in self.before:
                continue
            declared = (
                models.Campus.objects.filter(pk=cid)
                .values_list("power_redundancy", "cooling_redundancy")
                .first()
            )
            if declared is None:
                continue
            # a campus declaring nothing is short of nothing before the write: its levels are not needed
            self.before[cid] = _levels_before(cid) if any(declared) else None

    def inherit(self, campus_id: int, parent_id: int) -> None:
        """Judge ``campus_id``, a copy of ``parent_id`` made by the write (a branch), from its parent's levels
        rack by rack (racks matched by name), not from nothing: a copy warns only where it is built worse."""
        self.watch([parent_id])
        parent = self.before.get(parent_id)
        if parent is None:
            return
        names = dict(models.Rack.objects.filter(campus_id=parent_id).values_list("id", "name"))
        ids = dict(models.Rack.objects.filter(campus_id=campus_id).values_list("name", "id"))
        racks = {
            d: {ids[names[r]]: level for r, level in by_rack.items() if names.get(r) in ids}
            for d, by_rack in parent.racks.items()
        }
        self.before[campus_id] = _Levels(dict(parent.declared), racks, dict(parent.achieved))

    def watch_all(self) -> None:
        """Keep the levels of every campus (a write whose campuses are not known before it: the catalog)."""
        self.watch(list(self.revisions))

    def finish(self) -> list[dict]:
        """The warnings of the write (raising ``RedundancyShortfall`` with them when ``strict``)."""
        now = dict(models.Campus.objects.values_list("id", "revision"))
        for cid in sorted(now):
            if now[cid] == self.revisions.get(cid):
                continue
            if cid in self.revisions and cid not in self.before:
                continue  # a campus outside the write's scope (a merged branch's own row): not judged
            found = _levels_and_state(cid, keep=False)
            if found is None:
                continue
            after, domains, state = found
            _keep_after_commit(cid, after, state)
            self.warnings.extend(self._compare(cid, self.before.get(cid), after, domains))
        if self.warnings and self.strict:
            raise RedundancyShortfall(self.warnings)
        return self.warnings

    def _compare(
        self, campus_id: int, before: _Levels | None, after: _Levels, domains: dict[str, DomainLevel]
    ) -> list[dict]:
        out = []
        for d in DOMAINS:
            declared = after.declared[d]
            if not declared:
                continue
            old_declared = before.declared[d] if before is not None else ""
            old_racks = before.racks[d] if before is not None else {}
            worse = []
            for r, level in after.racks[d].items():
                was = _deficit(old_declared, old_racks[r]) if r in old_racks else 0
                if _deficit(declared, level) > was:
                    worse.append(r)
            if not worse:
                continue
            out.append(_warning(campus_id, d, before, after, domains[d], worse))
        return out


def _warning(
    campus_id: int, domain: str, before: _Levels | None, after: _Levels, level: DomainLevel, racks: list[int]
) -> dict:
    hit = set(racks)
    elements: list[dict] = [
        s["element"] for s in level.single_failures if hit.intersection(s["racks_lost"])
    ] + [
        {"maintenance": p["maintenance"], "failure": p["failure"]}
        for p in level.pairs
        if hit.intersection(p["racks_lost"])
    ]
    gpus = sum(level._gpu_count.get(r, 0) for r in racks)
    was = before.achieved[domain] if before is not None else ""
    now = after.achieved[domain]
    names = ", ".join(
        e["name"] if "name" in e else f"{e['maintenance']['name']} out + {e['failure']['name']} failed"
        for e in elements[:3]
    ) + (f" and {len(elements) - 3} more" if len(elements) > 3 else "")
    message = (
        f"{domain} redundancy below the declared {after.declared[domain]}: {len(racks)} "
        f"{'rack' if len(racks) == 1 else 'racks'} ({gpus:,} GPUs) newly at risk; achieved "
        f"{was or 'nothing declared'} before, {now} after" + (f" ({names})" if names else "")
    )
    return {
        "code": CODE,
        "campus": campus_id,
        "domain": domain,
        "declared": after.declared[domain],
        "before": was,
        "after": now,
        "elements": elements,
        "gpus_at_risk": gpus,
        "racks_at_risk": racks,
        "message": message,
    }


@contextmanager
def guarded(
    strict: bool = False, campus_ids: Iterable[int | None] | None = None
) -> Iterator[RedundancyGuard]:
    """A write inside one transaction, with its guard: ``campus_ids`` the campuses it may touch (None: every
    campus). On leaving, ``guard.warnings`` holds what it did to them; ``RedundancyShortfall`` (strict)
    rolls it back."""
    with transaction.atomic():
        guard = RedundancyGuard(strict=strict)
        if campus_ids is None:
            guard.watch_all()
        else:
            guard.watch(campus_ids)
        yield guard
        guard.finish()


def spec_campus_id(spec: dict) -> int | None:
    """The campus a spec import replaces (the campus of the spec's name), None for a new one."""
    name = (spec.get("campus") or {}).get("name") if isinstance(spec, dict) else None
    if not name:
        return None
    return models.Campus.objects.filter(name=name).values_list("id", flat=True).first()
