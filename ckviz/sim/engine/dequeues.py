"""A run's dequeues as the figures read them, kept compact and out of core as the run goes.

A day's replay dequeues millions of runs: kept as events (a tuple, a run id and its hold
each) they were most of a long run's memory. Here each dequeue is four integers in columns
(its key's number, arrival, dequeue time, hold), a chunk of CHUNK rows at a time; a full
chunk goes to an anonymous temporary file (gone when the run's tape is, or the process), so
memory holds one chunk whatever the day's length. What every figure needs per key is folded
as the rows come: how many, their holds in all, and the waits as exact counts of integer
milliseconds (a percentile from the counts is the same number as from the sorted waits).

The figures that walk the run in time (contention, what each key was owed, the timeline's
curve) read the rows back in dequeue order, and the arrivals in arrival order: each chunk's
arrivals are sorted as it is spilled (stably, so runs arriving at the same instant keep their
dequeue order), and a walk merges the chunks.
"""

from __future__ import annotations

import heapq
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import groupby
from operator import itemgetter
from typing import BinaryIO

from ckviz.model.snapshot import DequeueEvent

# Rows held in memory before they go to disk (2 MiB of columns; sorting a chunk's arrivals
# as it goes, or the last chunk's when a figure walks them, makes a few MiB more for a moment:
# at 1 << 18 that moment was 30 MiB of a cell's peak)
CHUNK = 1 << 16
BLOCK = 1 << 11  # rows read at a time from each spilled chunk while chunks are merged
Row = tuple[str, int, int, int]  # key, arrival, dequeued, hold
_FIRST, _DEQUEUED = itemgetter(0), itemgetter(2)


class WaitCounts:
    """One key's waits: how many runs waited each whole number of milliseconds."""

    __slots__ = ("counts", "n", "total")

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.n = 0
        self.total = 0

    def add(self, wait: int, times: int = 1) -> None:
        counts = self.counts
        counts[wait] = counts.get(wait, 0) + times
        self.n += times
        self.total += wait * times

    def merge(self, other: WaitCounts) -> None:
        for wait, times in other.counts.items():
            self.add(wait, times)

    def ranked(self, ranks: Sequence[int]) -> tuple[int, ...]:
        """The wait at each 0-based rank of the sorted waits (`ranks` ascending)."""
        out: list[int] = []
        seen, i = 0, 0
        for wait in sorted(self.counts):
            seen += self.counts[wait]
            while i < len(ranks) and ranks[i] < seen:
                out.append(wait)
                i += 1
            if i == len(ranks):
                break
        return tuple(out)

    @property
    def mean(self) -> float:
        """The waits' mean, the same float as their left-to-right sum over n (an integer sum
        is exact in a float below 2**53)."""
        return float(self.total) / self.n if self.n else 0.0

    @property
    def most(self) -> int:
        return max(self.counts) if self.counts else 0


class _Chunk:
    """One chunk's columns, in memory or at an offset of the tape's files."""

    __slots__ = ("arrivals_at", "rows", "rows_at")

    def __init__(self, rows: int, rows_at: int, arrivals_at: int) -> None:
        self.rows, self.rows_at, self.arrivals_at = rows, rows_at, arrivals_at


class Dequeues:
    """Every dequeue of a run in order (see the module); `holds_known`: the rows' holds are
    the runs' (else 0, and no figure that needs them is made)."""

    def __init__(self, holds_known: bool = True, chunk: int = CHUNK) -> None:
        self.holds_known = holds_known
        self.chunk = chunk
        self.keys: dict[str, int] = {}  # key -> its number, in the order first dequeued
        self.names: list[str] = []
        self.waits: list[WaitCounts] = []  # per key number
        self.held: list[int] = []  # per key number: its runs' holds in all
        self.first = 0
        self.last = 0
        self._count = 0
        self._cols = _columns()
        self._spilled: list[_Chunk] = []
        self._rows_file: BinaryIO | None = None
        self._arrivals_file: BinaryIO | None = None

    @classmethod
    def of(cls, events: Iterable[DequeueEvent], holds: Mapping[str, int] | None = None) -> Dequeues:
        """A tape of events already made (the app's, a test's), in dequeue order (stably)."""
        tape = cls(holds is not None)
        for key, run_id, arrival, dequeued in sorted(events, key=_DEQUEUED_EVENT):
            tape.add(key, arrival, dequeued, holds[run_id] if holds is not None else 0)
        return tape

    def __len__(self) -> int:
        return self._count

    def add(self, key: str, arrival: int, dequeued: int, hold: int) -> None:
        """One dequeue, at a time no earlier than the last one's."""
        number = self.keys.get(key)
        if number is None:
            number = self.keys[key] = len(self.names)
            self.names.append(key)
            self.waits.append(WaitCounts())
            self.held.append(0)
        if not self._count:
            self.first = dequeued
        elif dequeued < self.last:
            raise ValueError(f"a dequeue at {dequeued} after one at {self.last}")
        self.last = dequeued
        self._count += 1
        self.waits[number].add(dequeued - arrival)
        self.held[number] += hold
        keys, arrivals, times, holds = self._cols
        keys.append(number)
        arrivals.append(arrival)
        times.append(dequeued)
        holds.append(hold)
        if len(keys) >= self.chunk:
            self._spill()

    def got(self, key: str) -> int:
        number = self.keys.get(key)
        return 0 if number is None else self.waits[number].n

    def waits_of(self, key: str) -> WaitCounts:
        number = self.keys.get(key)
        return WaitCounts() if number is None else self.waits[number]

    def rows(self) -> Iterator[Row]:
        """(key, arrival, dequeued, hold) of every dequeue, in order."""
        names = self.names
        for cols in self._chunks():
            keys, arrivals, times, holds = cols
            yield from zip(map(names.__getitem__, keys), arrivals, times, holds, strict=True)

    def instants(self) -> Iterator[tuple[int, list[Row]]]:
        """The rows grouped by dequeue time."""
        for now, rows in groupby(self.rows(), key=_DEQUEUED):
            yield now, list(rows)

    def arrivals(self, more: Iterable[tuple[int, str]] = ()) -> Iterator[tuple[int, str]]:
        """(arrival, key) of every dequeue, by arrival time, stably (then `more`, sorted)."""
        names = self.names
        runs = [self._sorted_arrivals(c) for c in self._spilled]
        runs.append(zip(*_by_arrival(self._cols[0], self._cols[1]), strict=True))
        merged = heapq.merge(*runs, key=_FIRST) if len(runs) > 1 else runs[0]
        mine = ((arrival, names[number]) for arrival, number in merged)
        return heapq.merge(mine, sorted(more, key=_FIRST), key=_FIRST)

    def close(self) -> None:
        """Give the spilled chunks back (the files are unlinked already: closing frees them)."""
        for f in (self._rows_file, self._arrivals_file):
            if f is not None:
                f.close()
        self._rows_file = self._arrivals_file = None

    # ---- chunks ---------------------------------------------------------------------

    def _spill(self) -> None:
        if self._rows_file is None:
            # unlinked at once: nothing is left behind whatever ends the run (closed by close)
            self._rows_file = tempfile.TemporaryFile(prefix="ckviz-dequeues-")  # noqa: SIM115
            self._arrivals_file = tempfile.TemporaryFile(prefix="ckviz-arrivals-")  # noqa: SIM115
        rows, arrivals_out = self._rows_file, self._arrivals_file
        assert arrivals_out is not None
        keys, arrivals, _, _ = cols = self._cols
        chunk = _Chunk(len(keys), rows.seek(0, 2), arrivals_out.seek(0, 2))
        for col in cols:
            col.tofile(rows)
        for col in _by_arrival(keys, arrivals):  # the arrivals, then their keys
            col.tofile(arrivals_out)
        self._spilled.append(chunk)
        self._cols = _columns()

    def _chunks(self) -> Iterator[tuple[array[int], ...]]:
        for chunk in self._spilled:
            assert self._rows_file is not None
            self._rows_file.seek(chunk.rows_at)
            cols = _columns()
            for col in cols:
                col.fromfile(self._rows_file, chunk.rows)
            yield cols
        yield self._cols

    def _sorted_arrivals(self, chunk: _Chunk) -> Iterator[tuple[int, int]]:
        """A spilled chunk's (arrival, key number), by arrival, read BLOCK rows at a time."""
        f = self._arrivals_file
        assert f is not None
        width = array("q").itemsize
        for start in range(0, chunk.rows, BLOCK):
            n = min(BLOCK, chunk.rows - start)
            arrivals, keys = array("q"), array("q")
            f.seek(chunk.arrivals_at + start * width)
            arrivals.fromfile(f, n)
            f.seek(chunk.arrivals_at + (chunk.rows + start) * width)
            keys.fromfile(f, n)
            yield from zip(arrivals, keys, strict=True)


_DEQUEUED_EVENT = itemgetter(3)


def _by_arrival(keys: array[int], arrivals: array[int]) -> tuple[array[int], array[int]]:
    """A chunk's arrivals and their keys in arrival order (stably: a tie keeps dequeue
    order), as arrays (a list of pairs costs ten times the memory)."""
    order = sorted(range(len(arrivals)), key=arrivals.__getitem__)
    return array("q", map(arrivals.__getitem__, order)), array("q", map(keys.__getitem__, order))


def _columns() -> tuple[array[int], array[int], array[int], array[int]]:
    return array("q"), array("q"), array("q"), array("q")


def as_dequeues(
    events: Dequeues | Iterable[DequeueEvent], holds: Mapping[str, int] | None = None
) -> Dequeues:
    """The figures' one input: a run's tape, or a tape made of events already in hand."""
    return events if isinstance(events, Dequeues) else Dequeues.of(events, holds)
