"""Running every cell of a matrix, in order or on worker processes, with progress."""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from ckviz.headless.cells import Cell, CellOutcome, run_cell

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


def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops handing out cells; a cell in flight
    # finishes and deletes its keys instead of dying half-way.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_pool(
    url: str, cells: Sequence[Cell], jobs: int, on_done: Progress, stop_when: StopWhen
) -> list[CellOutcome]:
    context = multiprocessing.get_context("spawn")
    done: dict[int, CellOutcome] = {}
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_sigint) as pool:
        pending: set[Future[CellOutcome]] = {pool.submit(run_cell, url, c) for c in cells}
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    outcome = future.result()
                    done[outcome.index] = outcome
                    on_done(outcome)
                    if stop_when(outcome):
                        pending = {f for f in pending if not f.cancel()}
        except KeyboardInterrupt:
            for future in pending:
                future.cancel()
            raise _Interrupted([done[i] for i in sorted(done)]) from None
    return [done[i] for i in sorted(done)]


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying the outcomes collected before it."""

    def __init__(self, outcomes: list[CellOutcome]) -> None:
        super().__init__()
        self.outcomes = outcomes


Interrupted = _Interrupted
