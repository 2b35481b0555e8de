"""What is worked out from a snapshot is kept on the snapshot itself (``campus.analysis.memo``): shared by
every caller while the snapshot lives, freed with it, never carried into a new snapshot or a pickle, and
without a lock or a module-wide cache."""

from __future__ import annotations

import gc
import pickle
import weakref
from dataclasses import replace

from campus.analysis.fabric import fabric_from_inventory
from campus.analysis.headroom import failover_headroom
from campus.analysis.memo import snapshot_memo
from campus.analysis.placement.power_fit import _sweep
from campus.analysis.power import baseline_state, power_graph
from tests.engine.builders import campus


def test_a_figure_is_worked_out_once_per_snapshot():
    snap = campus()
    assert power_graph(snap) is power_graph(snap)
    assert baseline_state(power_graph(snap)) is baseline_state(power_graph(snap))
    assert fabric_from_inventory(snap) is fabric_from_inventory(snap)


def test_a_new_snapshot_starts_with_an_empty_memo():
    snap = campus()
    graph = power_graph(snap)
    other = replace(snap, name="another")
    assert snapshot_memo(other) == {}
    assert power_graph(other) is not graph and power_graph(other).snap is other


def test_two_equal_snapshots_keep_their_own_figures():
    # equal by value (the memo is not a field), yet each its own memo
    a, b = campus(), campus()
    assert a == b
    assert power_graph(a) is not power_graph(b)


def test_a_pickled_snapshot_leaves_its_memo_behind():
    snap = campus()
    bare = pickle.dumps(snap)
    power_graph(snap)
    fabric_from_inventory(snap)
    assert snapshot_memo(snap)
    assert pickle.dumps(snap) == bare
    back = pickle.loads(bare)
    assert back == snap and snapshot_memo(back) == {}
    assert power_graph(back).snap is back


def test_a_snapshot_and_its_figures_are_freed_together():
    # The power graph holds its snapshot: a cache outside the snapshot that keeps the graph keeps the
    # snapshot alive too (a bounded module-wide cache held the last few for ever).
    snap = campus()
    graph = weakref.ref(power_graph(snap))
    fabric_from_inventory(snap)
    gone = weakref.ref(snap)
    del snap
    gc.collect()
    assert gone() is None and graph() is None


def test_failover_headroom_and_the_placement_sweep_are_worked_out_once_per_snapshot():
    snap = campus()
    head, sweep = failover_headroom(snap), _sweep(power_graph(snap))
    assert failover_headroom(snap) is head and _sweep(power_graph(snap)) is sweep
    other = replace(snap, name="another")
    assert failover_headroom(other) is not head and _sweep(power_graph(other)) is not sweep
    assert failover_headroom(other).as_dict() == head.as_dict()


def test_failover_headroom_and_the_placement_sweep_are_freed_with_their_snapshot():
    # Both were kept in bounded module-wide caches under a lock, which held the last few graphs (and so
    # their snapshots) alive.
    snap = campus()
    head = weakref.ref(failover_headroom(snap))
    sweep = weakref.ref(_sweep(power_graph(snap)))
    gone = weakref.ref(snap)
    del snap
    gc.collect()
    assert gone() is None and head() is None and sweep() is None
