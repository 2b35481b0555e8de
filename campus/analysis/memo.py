"""Figures kept with a snapshot while it lives: a snapshot is immutable, so what is worked out from it
once holds for as long as the snapshot does.

``snapshot_memo(snap)`` is a dict held by the snapshot itself (``CampusSnapshot.__post_init__``): it lives
and dies with the snapshot, a new snapshot (``dataclasses.replace`` included) starts with an empty one, and
a pickled snapshot leaves it behind. Values must be treated as read-only by whoever reads them.

No lock: two threads working out the same figure of one snapshot at once both store it, and the second
replaces the first; a figure is the same whoever works it out, so nothing is lost but the time. The pure
core holds no threads or locks (docs/architecture.md).
"""

from __future__ import annotations

from campus.analysis.snapshot import CampusSnapshot


def snapshot_memo(snap: CampusSnapshot) -> dict[str, object]:
    """The memo of ``snap`` (empty the first time)."""
    return snap._memo  # type: ignore[attr-defined]
