"""A trace replayed as its clock goes: the runs read from the file as they are asked for,
so a replay holds only the runs in the system, never the whole day (inputs/trace.py checks
the file first).

A trace in time order streams as it is, the runs of each millisecond put in event order (key,
then run id) as they are read. One that is not (the check notes its first line arriving
before the line above it) is sorted out of core: SORT_CHUNK runs at a time sorted into
temporary files, merged as the clock goes. Either way the runs come out in the order
`generate` gives, with the same run ids (a key's lines counted in file order)."""

from __future__ import annotations

import heapq
import os
import pickle
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ckviz.inputs.trace import TraceProblems, changed
from ckviz.inputs.trace_lines import lines_of
from ckviz.model.queue import PlannedRun, RunStream, js_string_order, run_id
from ckviz.model.scenario import TraceSummary


def replay(summary: TraceSummary) -> list[PlannedRun]:
    """The trace's runs in event order (arrival, key, run id), as `generate` orders them, all
    at once (a small trace's: a fork's, a search's); a replay streams them (`stream`)."""
    return list(stream(summary).runs)


def stream(summary: TraceSummary) -> RunStream:
    """The trace's runs in event order, read from the file as they are asked for; a trace
    changed since it was checked is a one-line problem (up front, or when the reading meets
    the change), not other runs."""
    try:
        stat = os.stat(summary.path)
    except OSError as exc:
        raise TraceProblems([f"{summary.path}: cannot read: {exc.strerror or exc}"], 1) from None
    if summary.stamp is not None and summary.stamp != (stat.st_mtime_ns, stat.st_size):
        raise TraceProblems([changed(summary.path)], 1)
    return RunStream(_runs(summary), summary.per_key, summary.runs)


def _runs(summary: TraceSummary) -> Iterator[PlannedRun]:
    """The trace's runs in event order: as read when the file is in time order, else sorted
    out of core."""
    if summary.disorder:
        return _sorted_runs(summary)
    return _runs_in_order(summary)


def _read_runs(summary: TraceSummary) -> Iterator[PlannedRun]:
    """The file's runs in file order, each with its run id (a key's lines counted in file
    order when the file gives none); a trace changed since it was checked is a problem."""
    path, shift = summary.path, summary.shift_ms
    per_key: dict[str, int] = {}
    count = 0
    for item in lines_of(Path(path)):
        if isinstance(item, str):  # changed since it was checked
            raise TraceProblems([item], 1)
        n = per_key.get(item.key, 0)
        per_key[item.key] = n + 1
        rid = item.run_id if item.run_id is not None else run_id(item.key, n)
        count += 1
        yield PlannedRun(item.key, rid, item.arrival_ms - shift, item.hold_ms, item.life)
    if count != summary.runs or per_key.keys() != summary.weights.keys():
        raise TraceProblems([changed(path)], 1)


def _event_order(run: PlannedRun) -> tuple[int, bytes, bytes]:
    return (run.arrival_ms, js_string_order(run.key), js_string_order(run.run_id))


SORT_CHUNK = 1_000_000  # runs sorted in memory at once (~0.5 GiB) when a trace needs sorting


def _sorted_runs(summary: TraceSummary) -> Iterator[PlannedRun]:
    """The runs sorted in chunks of SORT_CHUNK, each written to a temporary file (none when
    one chunk holds them all), then merged as they are asked for."""
    chunk: list[PlannedRun] = []
    spilled: list[IO[bytes]] = []
    try:
        for run in _read_runs(summary):
            chunk.append(run)
            if len(chunk) == SORT_CHUNK:
                spilled.append(_spill(sorted(chunk, key=_event_order)))
                chunk = []
        chunk.sort(key=_event_order)
        yield from heapq.merge(*map(_unspilled, spilled), chunk, key=_event_order)
    finally:
        for f in spilled:
            f.close()


def _spill(runs: list[PlannedRun]) -> IO[bytes]:
    f = tempfile.TemporaryFile()  # noqa: SIM115 (the merge reads it, then closes it)
    for run in runs:
        pickle.dump(run, f, pickle.HIGHEST_PROTOCOL)
    f.seek(0)
    return f


def _unspilled(f: IO[bytes]) -> Iterator[PlannedRun]:
    while True:
        try:
            run: PlannedRun = pickle.load(f)
        except EOFError:
            return
        yield run


def _runs_in_order(summary: TraceSummary) -> Iterator[PlannedRun]:
    """The file's runs, each millisecond's put in event order (key, run id) before they go."""
    instant: list[PlannedRun] = []  # the runs of the millisecond being read
    for run in _read_runs(summary):
        if instant and run.arrival_ms != instant[0].arrival_ms:
            if run.arrival_ms < instant[0].arrival_ms:  # checked in order: changed since
                raise TraceProblems([changed(summary.path)], 1)
            yield from _in_event_order(instant)
            instant = []
        instant.append(run)
    yield from _in_event_order(instant)


def _in_event_order(runs: list[PlannedRun]) -> list[PlannedRun]:
    if len(runs) > 1:
        runs.sort(key=lambda r: (js_string_order(r.key), js_string_order(r.run_id)))
    return runs
