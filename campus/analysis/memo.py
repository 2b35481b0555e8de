"""Figures kept with a snapshot while it lives: a snapshot is immutable, so what is worked out from it
once holds for as long as the snapshot does.

``snapshot_memo(snap)`` is a dict for one snapshot. The memo does not keep the snapshot alive: it is
dropped when the snapshot is collected (a weak reference; ``CampusSnapshot`` holds dicts, so it cannot be
a key of a ``WeakKeyDictionary``). Values must be treated as read-only by whoever reads them.
"""

from __future__ import annotations

import threading
import weakref

from campus.analysis.snapshot import CampusSnapshot

_MEMOS: dict[int, tuple[weakref.ref, dict[str, object]]] = {}
_LOCK = threading.Lock()  # API workers may share snapshots across threads


def snapshot_memo(snap: CampusSnapshot) -> dict[str, object]:
    """The memo of ``snap`` (empty the first time)."""
    key = id(snap)
    hit = _MEMOS.get(key)
    if hit is not None and hit[0]() is snap:
        return hit[1]
    with _LOCK:
        hit = _MEMOS.get(key)
        if hit is not None and hit[0]() is snap:
            return hit[1]
        memo: dict[str, object] = {}

        def forget(ref: weakref.ref, key: int = key) -> None:
            entry = _MEMOS.get(key)
            if entry is not None and entry[0] is ref:
                del _MEMOS[key]

        _MEMOS[key] = (weakref.ref(snap, forget), memo)
        return memo
