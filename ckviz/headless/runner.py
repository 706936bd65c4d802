"""Running every cell of a matrix, in order or on worker processes, with progress."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ckviz.errors import ExitCode
from ckviz.headless.cells import Cell, CellOutcome, cell_label, run_cell
from ckviz.store.server import die_with_parent

Progress = Callable[[CellOutcome], None]
StopWhen = Callable[[CellOutcome], bool]


def _never(outcome: CellOutcome) -> bool:
    return False


def run_cells(
    url: str, cells: Sequence[Cell], jobs: int, on_done: Progress, stop_when: StopWhen = _never
) -> list[CellOutcome]:
    """Every cell's outcome, in cell order. KeyboardInterrupt propagates after cells in flight
    finish and clean their keys; `on_done` has seen every outcome collected before it.
    Once `stop_when(outcome)` holds, no further cell starts (cells in flight finish)."""
    if jobs <= 1 or len(cells) <= 1:
        return _in_order(url, cells, on_done, stop_when)
    return _in_pool(url, cells, jobs, on_done, stop_when)


def _in_order(
    url: str, cells: Sequence[Cell], on_done: Progress, stop_when: StopWhen
) -> list[CellOutcome]:
    outcomes: list[CellOutcome] = []
    try:
        for cell in cells:
            outcome = run_cell(url, cell)
            outcomes.append(outcome)
            on_done(outcome)
            if stop_when(outcome):
                break
    except KeyboardInterrupt:
        raise _Interrupted(outcomes) from None
    return outcomes


# On Linux a worker is forked: it starts with ckviz already imported, where a spawned one
# spends a noticeable part of a cell importing it again (docs/performance.md). The
# pool forks every worker before its own thread starts, and the parent runs no other thread.
# Elsewhere (macOS: fork is unsafe with its system libraries) workers are spawned.
_START_METHOD = "fork" if sys.platform == "linux" else "spawn"


def _worker_init(parent_pid: int) -> None:
    # Workers leave Ctrl-C to the parent, which stops handing out cells; a cell in flight
    # finishes and deletes its keys instead of dying half-way. If the parent dies anyway
    # (killed), the worker goes with it rather than wait forever for work (by SIGTERM, whose
    # default action a forked worker gets back from the parent's stop request).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a closed terminal reaches the whole group
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent_pid)


class _StopRequest:
    """While active, SIGINT/SIGTERM/SIGHUP only set a flag the pool loop polls: no exception lands
    inside the executor's machinery. A second signal raises KeyboardInterrupt."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _StopRequest:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum: int, frame: object) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True


def _in_pool(
    url: str, cells: Sequence[Cell], jobs: int, on_done: Progress, stop_when: StopWhen
) -> list[CellOutcome]:
    context = multiprocessing.get_context(_START_METHOD)
    done: dict[int, CellOutcome] = {}
    workers = min(jobs, len(cells))
    with (
        _StopRequest() as stop,
        ProcessPoolExecutor(
            workers, mp_context=context, initializer=_worker_init, initargs=(os.getpid(),)
        ) as pool,
    ):
        # Cells are handed out one per free worker, never queued ahead: a queued cell could
        # no longer be cancelled, and would start after the server was already lost.
        waiting = iter(cells)
        cell_of: dict[Future[CellOutcome], Cell] = {}
        halted = False
        for cell in itertools.islice(waiting, workers):
            cell_of[pool.submit(run_cell, url, cell)] = cell
        pending: set[Future[CellOutcome]] = set(cell_of)
        while pending:
            finished, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            for future in finished:
                try:
                    outcome = future.result()
                except BrokenProcessPool as exc:  # a worker was killed (OOM killer, kill -9)
                    outcome = _worker_died(cell_of[future], exc)
                    halted = True
                done[outcome.index] = outcome
                on_done(outcome)
                halted = halted or stop_when(outcome) or stop.requested
                nxt = None if halted or stop.requested else next(waiting, None)
                if nxt is not None:
                    fresh = pool.submit(run_cell, url, nxt)
                    cell_of[fresh] = nxt
                    pending.add(fresh)
        if stop.requested:
            raise _Interrupted([done[i] for i in sorted(done)])
    return [done[i] for i in sorted(done)]


def _worker_died(cell: Cell, exc: BaseException) -> CellOutcome:
    message = f"{cell_label(cell)}: its worker process died ({type(exc).__name__})"
    return CellOutcome(cell.index, None, message, int(ExitCode.CHECK_FAILED))


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying the outcomes collected before it."""

    def __init__(self, outcomes: list[CellOutcome]) -> None:
        super().__init__()
        self.outcomes = outcomes


Interrupted = _Interrupted
