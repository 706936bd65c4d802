"""Trace files: a recorded workload, one run per line, replayed instead of a sampled one.

CSV with a header row, or JSON Lines (one object per line), with the fields `key`,
`arrival_ms`, `hold_ms` and optionally `run_id`, `weight`, the lifecycle's `delay_ms`,
`ttl_ms` and `attempts` (inputs/trace_fields.py), `tenant` (the customer owning the key: every
line of a key gives the same one, or none), and `outcome` (what became of the run where it
was recorded: a note, not replayed); a forked start (`ckviz whatif`) adds `age_ms` (a run
already waiting that long at its arrival) and `start` (`held`: a run holding its slot from
its arrival, for its hold). Lines starting with `#` are comments (in a CSV, only
before its header row): where and how the trace was recorded (`ckviz capture` writes them).
Arrivals are ms since the start, or epoch ms (any arrival >= EPOCH_MS_FROM), then shifted so
the first arrival is 0. Holds and arrivals may be fractional (rounded to the ms; a hold is at
least 1 ms, the clock's tick).
Without `run_id` a run is `<key>~0#<n>`, n counting that key's lines, as sampled runs are.

Reading streams the file: checking a trace keeps only its keys (and run ids, when given) in
memory; replaying it reads the file again as the clock reaches each line, so a replay holds
only the runs in the system, never the whole day. A trace in time order streams as it is
(runs of the same millisecond put in event order, key then run id, as they are read); one
that is not (checking notes its first line arriving before the line above it) is sorted out of
core: runs of SORT_CHUNK at a time sorted into temporary files, then merged as the clock
goes."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from ckviz.inputs.trace_lines import TraceLine, lines_of
from ckviz.model.queue import run_id
from ckviz.model.scenario import MAX_KEYS, MAX_TRACE_RUNS, TraceSummary

TRACE_SUFFIXES = (".csv", ".jsonl", ".ndjson")
EPOCH_MS_FROM = 10**12  # 2001-09-09 in epoch ms; a relative trace would be 31 years long
MAX_PROBLEMS = 20  # then "... and N more": a broken export should not flood the terminal


class TraceProblems(Exception):
    """Lines `file:line: field: reason`, the first MAX_PROBLEMS of `count`."""

    def __init__(self, lines: list[str], count: int) -> None:
        super().__init__(lines[0] if lines else "")
        self.lines = lines
        self.count = count


def is_trace(path: Path) -> bool:
    return path.suffix.lower() in TRACE_SUFFIXES


def read_trace(path: Path) -> TraceSummary:
    """Check every line; TraceProblems lists what is wrong, with line numbers. A file read
    once is not read again while it is unchanged (validate checks it, then loads it)."""
    try:
        st = os.stat(path)
    except OSError:
        return _read_trace(path)  # says why, as a problem line
    return _read_unchanged(str(path), st.st_ino, st.st_mtime_ns, st.st_size)


def forget_read_traces() -> None:
    """Drop the traces kept from earlier reads (a benchmark measures a cold read)."""
    _read_unchanged.cache_clear()


@functools.lru_cache(maxsize=2)
def _read_unchanged(path: str, inode: int, mtime_ns: int, size: int) -> TraceSummary:
    return _read_trace(Path(path))


def _read_trace(path: Path) -> TraceSummary:
    check = _Check(path)
    try:  # before reading: a change while it is read shows as a change too
        stat = path.stat()
        check.stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        pass  # lines_of says why it cannot be read
    for item in lines_of(path):
        if isinstance(item, str):
            check.problem(item)
        else:
            check.add(item)
    return check.summary()


class _Check:
    """What reading a trace keeps: per key its weight, the run ids given, the arrival range."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[str] = []
        self.count = 0
        self.keys: dict[str, None] = {}  # in order of first appearance
        self.weights: dict[str, tuple[float, int]] = {}  # key -> (weight, line that gave it)
        self.ids: dict[str, int] = {}
        self.per_key: dict[str, int] = {}  # runs so far per key: the index a run id gets
        self.given_at: set[tuple[str, int]] = set()  # (key, index) of runs with a run_id
        self.lookalikes: list[tuple[str, int, str, int]] = []  # ids of the generated form
        self.runs = 0
        self.lowest: int | None = None
        self.highest: int | None = None
        self.stamp: tuple[int, int] | None = None  # (mtime ns, size) when it was read
        self.lifecycle = False  # some line gives a lifecycle column
        self.held_at_start = 0  # lines of runs held at the start (start = held)
        self.latest: tuple[int, int] | None = None  # (arrival, line) of the last run read
        self.disorder = 0  # the first line arriving before the one above it (0: none)
        self.tenants: dict[str, tuple[str, int]] = {}  # key -> (tenant, line that gave it)

    def problem(self, text: str) -> None:
        self.count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text)

    def add(self, item: TraceLine) -> None:
        where = f"{self.path}:{item.number}"
        if item.key not in self.keys:
            if len(self.keys) == MAX_KEYS:
                self.problem(
                    f"{where}: key: more than {MAX_KEYS} keys; at most {MAX_KEYS} are supported"
                )
                return
            self.keys[item.key] = None
        self.runs += 1
        self.lifecycle = self.lifecycle or item.life.has_lifecycle
        self.held_at_start += item.life.held
        if item.weight is not None:
            given = self.weights.setdefault(item.key, (item.weight, item.number))
            if given[0] != item.weight:
                self.problem(
                    f"{where}: weight: {item.weight:g} differs from the {given[0]:g} "
                    f"given for key '{item.key}' on line {given[1]}"
                )
        if item.tenant is not None:
            owner = self.tenants.setdefault(item.key, (item.tenant, item.number))
            if owner[0] != item.tenant:
                self.problem(
                    f"{where}: tenant: '{item.tenant}' differs from the '{owner[0]}' "
                    f"given for key '{item.key}' on line {owner[1]}"
                )
        index = self.per_key.get(item.key, 0)
        self.per_key[item.key] = index + 1
        if item.run_id is not None:
            if item.run_id in self.ids:
                self.problem(
                    f"{where}: run_id: '{item.run_id}' is already on line {self.ids[item.run_id]}"
                )
            self.ids.setdefault(item.run_id, item.number)
            self.given_at.add((item.key, index))
            key, mark, n = item.run_id.rpartition(GENERATED_MARK)
            # a generated index has 0-9 digits only (not `²`) and fewer than 19 (a trace holds at
            # most 10^7 runs; 5,000 digits are past what int() converts)
            if mark and n.isascii() and n.isdigit() and len(n) < 19 and n == str(int(n)):
                self.lookalikes.append((key, int(n), item.run_id, item.number))
        arrival = item.arrival_ms
        self._in_time_order(item)
        self.lowest = arrival if self.lowest is None else min(self.lowest, arrival)
        self.highest = arrival if self.highest is None else max(self.highest, arrival)

    def _in_time_order(self, item: TraceLine) -> None:
        """The first line arriving before the line above it: a replay must sort the file."""
        if self.latest is not None and item.arrival_ms < self.latest[0] and not self.disorder:
            self.disorder = item.number
        self.latest = (item.arrival_ms, item.number)

    def _generated_twins(self) -> None:
        """A run_id given that equals the one ckviz gives a run without one (`<key>~0#<n>`
        for the n-th run of a key): the replay would hold two runs under one id."""
        for key, n, given, line in self.lookalikes:
            if n < self.per_key.get(key, 0) and (key, n) not in self.given_at:
                self.problem(
                    f"{self.path}:{line}: run_id: '{given}' is the id ckviz gives run {n} of "
                    f"key '{key}', which has no run_id; rename one of them"
                )

    def summary(self) -> TraceSummary:
        self._generated_twins()
        if self.runs > MAX_TRACE_RUNS:
            self.problem(f"{self.path}: {self.runs} runs; at most {MAX_TRACE_RUNS} are supported")
        if self.runs == 0 and self.count == 0:
            self.problem(f"{self.path}: no runs (a header row, then one run per line)")
        shift = 0
        if self.highest is not None and self.highest >= EPOCH_MS_FROM:
            shift = self.lowest or 0
            if shift < EPOCH_MS_FROM:
                self.problem(
                    f"{self.path}: arrival_ms mixes epoch ms (>= {EPOCH_MS_FROM}) "
                    "and ms since the start"
                )
        if self.count:
            hidden = self.count - len(self.problems)
            more = [f"{self.path}: ... and {hidden} more problems"] if hidden else []
            raise TraceProblems(self.problems + more, self.count)
        weights = {k: self.weights.get(k, (1.0, 0))[0] for k in self.keys}
        path = str(self.path.resolve())
        tenants = {k: t for k, (t, _) in self.tenants.items()} or None
        return TraceSummary(
            path,
            weights,
            self.runs,
            shift,
            self.stamp,
            self.lifecycle,
            self.held_at_start,
            dict(self.per_key),
            self.disorder,
            tenants,
        )


def changed(path: str) -> str:
    return f"{path}: changed since it was checked (its runs differ); run again"


GENERATED_MARK = run_id("", 0).removesuffix("0")  # `~0#`: between a key and its run's index
