"""Keeping CPython's cyclic garbage collector out of a run's hot loop.

A serve attempt allocates many short-lived tuples (with 10,000 keys, a rescoring discipline
ranks and writes 10,000 entries per attempt), while the ledger, the workload and the events
keep hundreds of thousands of objects alive. At the default first threshold (700
allocations) the young generation fills many times per attempt, survivors are promoted, and
full collections walk the whole live heap (what that cost: docs/performance.md). Nothing
the driver builds needs the cycle collector to die (reference counting frees it), so a run
lets the young generation grow before a collection instead.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 20_000  # allocations between young collections while a run is in progress

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, ...] = ()


@contextmanager
def roomy_young_generation() -> Iterator[None]:
    """While inside, the first GC threshold is at least YOUNG_THRESHOLD; the thresholds are
    put back when the last one inside (of any thread) leaves."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            first, *rest = _saved
            gc.set_threshold(max(first, YOUNG_THRESHOLD), *rest)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_saved)
