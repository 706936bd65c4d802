"""Running every cell of a matrix, in order or on worker processes, with progress."""

from __future__ import annotations

import contextlib
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
from ckviz.outputs.interrupts import INTERRUPTS, ForcedQuit
from ckviz.store.server import die_with_parent

Progress = Callable[[CellOutcome], None]
StopWhen = Callable[[CellOutcome], bool]


def _never(outcome: CellOutcome) -> bool:
    return False


def run_cells(
    url: str,
    cells: Sequence[Cell],
    jobs: int,
    on_done: Progress,
    stop_when: StopWhen = _never,
    yield_to_server: bool = False,
) -> list[CellOutcome]:
    """Every cell's outcome, in cell order. KeyboardInterrupt propagates after cells in flight
    finish and clean their keys; `on_done` has seen every outcome collected before it.
    Once `stop_when(outcome)` holds, no further cell starts (cells in flight finish).
    `yield_to_server`: the server is ckviz's own, on this machine; the workers run at a
    lower priority (WORKER_NICE) so that it gets a core whenever it has work."""
    if jobs <= 1 or len(cells) <= 1:
        return _in_order(url, cells, on_done, stop_when)
    nice = WORKER_NICE if yield_to_server else 0
    return _in_pool(url, cells, jobs, on_done, stop_when, nice)


def _in_order(
    url: str, cells: Sequence[Cell], on_done: Progress, stop_when: StopWhen
) -> list[CellOutcome]:
    outcomes: list[CellOutcome] = []
    cell = None
    try:
        for cell in cells:
            outcome = run_cell(url, cell)
            outcomes.append(outcome)
            on_done(outcome)
            if stop_when(outcome):
                break
    except ForcedQuit:  # asked again while the interrupted cell cleaned up: given up
        raise _Interrupted(outcomes, [cell] if cell else []) from None
    except KeyboardInterrupt:
        raise _Interrupted(outcomes) from None
    return outcomes


# On Linux a worker is forked: it starts with ckviz already imported, where a spawned one
# spends a noticeable part of a cell importing it again (docs/performance.md). The
# pool forks every worker before its own thread starts, and the parent runs no other thread.
# Elsewhere (macOS: fork is unsafe with its system libraries) workers are spawned.
_START_METHOD = "fork" if sys.platform == "linux" else "spawn"

# The one server runs every worker's scripts, one at a time: it is the matrix's serial part.
# With twice as many workers as cores it waited for a core longer than it ran (default
# matrix, 2 cores, a busy machine: 3.5-6.7 s waiting for 2.2 s run); with the workers at this
# niceness it preempts one at once (0.3-0.6 s waiting in all; docs/performance.md).
WORKER_NICE = 10


def _worker_init(parent_pid: int, nice: int = 0) -> None:
    # Workers leave Ctrl-C to the parent, which stops handing out cells; a cell in flight
    # finishes and deletes its keys instead of dying half-way. If the parent dies anyway
    # (killed), the worker goes with it rather than wait forever for work (by SIGTERM, whose
    # default action a forked worker gets back from the parent's stop request).
    # A worker has its own process group: a signal to ckviz's group (a cancelled CI job, a
    # closed terminal) reaches the parent only, which decides what to stop.
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent_pid)
    if nice:
        os.nice(nice)


def _in_pool(
    url: str,
    cells: Sequence[Cell],
    jobs: int,
    on_done: Progress,
    stop_when: StopWhen,
    nice: int = 0,
) -> list[CellOutcome]:
    context = multiprocessing.get_context(_START_METHOD)
    done: dict[int, CellOutcome] = {}
    workers = min(jobs, len(cells))
    cell_of: dict[Future[CellOutcome], Cell] = {}
    pending: set[Future[CellOutcome]] = set()
    with (
        INTERRUPTS.polled(),
        ProcessPoolExecutor(
            workers, mp_context=context, initializer=_worker_init, initargs=(os.getpid(), nice)
        ) as pool,
    ):
        try:
            # Cells are handed out one per free worker, never queued ahead: a queued cell
            # could no longer be cancelled, and would start after the server was lost.
            waiting = iter(cells)
            halted = False
            for cell in itertools.islice(waiting, workers):
                cell_of[pool.submit(run_cell, url, cell)] = cell
            pending = set(cell_of)
            while pending:
                finished, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                for future in finished:
                    try:
                        outcome = future.result()
                    except BrokenProcessPool as exc:  # a worker was killed (OOM, kill -9)
                        outcome = _worker_died(cell_of[future], exc)
                        halted = True
                    done[outcome.index] = outcome
                    on_done(outcome)
                    halted = halted or stop_when(outcome) or INTERRUPTS.requested
                    nxt = None if halted or INTERRUPTS.requested else next(waiting, None)
                    if nxt is not None:
                        try:
                            fresh = pool.submit(run_cell, url, nxt)
                        except BrokenProcessPool:  # a worker died since this batch was read
                            halted = True
                            continue
                        cell_of[fresh] = nxt
                        pending.add(fresh)
        except ForcedQuit:
            _abandon(pool)
            abandoned = [cell_of[f] for f in pending if not f.done()]
            raise _Interrupted([done[i] for i in sorted(done)], abandoned) from None
        if INTERRUPTS.requested:
            raise _Interrupted([done[i] for i in sorted(done)])
    return [done[i] for i in sorted(done)]


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Stop the workers at once (asked twice: the cells in flight are given up; the namespace
    sweep deletes their keys), so that leaving the pool does not wait for them."""
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _worker_died(cell: Cell, exc: BaseException) -> CellOutcome:
    message = f"{cell_label(cell)}: its worker process died ({type(exc).__name__})"
    return CellOutcome(cell.index, None, message, int(ExitCode.CHECK_FAILED))


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying the outcomes collected before it (and the cells given up unfinished
    when the request was repeated, more than a moment later, while they ran)."""

    def __init__(self, outcomes: list[CellOutcome], abandoned: Sequence[Cell] = ()) -> None:
        super().__init__()
        self.outcomes = outcomes
        self.abandoned = list(abandoned)


Interrupted = _Interrupted
