"""Python's cyclic garbage collector paused around work that allocates much and makes no garbage cycles.

A collection of the oldest generation walks every tracked object of the process; while a large campus's
snapshot (a few hundred thousand dataclasses and tuples) is alive, each one costs a few tenths of a second,
and building a snapshot or an analysis of it allocates enough to start several. Reference counting still
frees everything as usual; only the search for cycles waits until the work is done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block, back on after it if it was on (nested blocks leave it to the outer
    one; a thread that finds it off leaves it to the thread that turned it off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
