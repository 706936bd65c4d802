"""A long cell's progress on stderr: runs done, logical time reached, rate and time left.

A day of traffic replays for minutes to hours, and a cell says nothing until it ends. A cell
of LONG_RUNS runs or more, once it has run for EVERY_S, says how far it is, at most once every
EVERY_S, as a line (a CI log or a file keeps each); short cells, which are most, print
nothing more than they did.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from ckviz.model.clock import Unit

EVERY_S = 10.0
LONG_RUNS = 100_000  # a cell of fewer runs is over in seconds: no reporter at all


def _to_stderr(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class CellProgress:
    """Called with (runs dequeued, logical time) as a cell runs; writes a line when due."""

    def __init__(
        self,
        label: str,
        total: int,
        unit: Unit = "ms",
        clock: Callable[[], float] = time.monotonic,
        write: Callable[[str], None] = _to_stderr,
    ) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.clock = clock
        self.write = write
        self.started = clock()
        self.last = self.started  # the first line comes EVERY_S in

    def __call__(self, done: int, t: int) -> None:
        now = self.clock()
        if now - self.last < EVERY_S:
            return
        self.last = now
        self.write(self.line(done, t, now - self.started))

    def line(self, done: int, t: int, elapsed_s: float) -> str:
        rate = done / elapsed_s if elapsed_s > 0 else 0.0
        where = f"t={_clock(t)}" if self.unit == "ms" else f"step {t:,}"
        left = f", about {_clock(int((self.total - done) / rate * 1000))} left" if rate else ""
        return (
            f"{self.label}: {done:,} of {self.total:,} runs dequeued, {where}, "
            f"{rate:,.0f} runs/s{left}"
        )


def _clock(ms: int) -> str:
    """ms as h:mm:ss."""
    s = max(0, ms) // 1000
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
