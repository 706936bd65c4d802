"""Running every cell of a matrix, in order or several at once on worker processes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ckviz.headless.cells import Cell, CellOutcome, Clients, run_cell
from ckviz.headless.workers import Workers, cells_per_worker
from ckviz.outputs.interrupts import INTERRUPTS, ForcedQuit

Progress = Callable[[CellOutcome], None]
StopWhen = Callable[[CellOutcome], bool]


def _never(outcome: CellOutcome) -> bool:
    return False


def _nothing() -> None:
    pass


def run_cells(
    url: str,
    cells: Sequence[Cell],
    jobs: int,
    on_done: Progress,
    stop_when: StopWhen = _never,
    yield_to_server: bool = False,
    under_way: Callable[[], None] = _nothing,
) -> list[CellOutcome]:
    """Every cell's outcome, in cell order. KeyboardInterrupt propagates after cells in flight
    finish and clean their keys; `on_done` has seen every outcome collected before it.
    Once `stop_when(outcome)` holds, no further cell starts (cells in flight finish).
    `yield_to_server`: the server is ckviz's own, on this machine; the workers run at a
    lower priority (WORKER_NICE) so that it gets a core whenever it has work. `under_way` is
    called once the first cells run, before any outcome: the caller's own loading then
    happens beside them (on a pool, after the workers are forked: a thread it starts is not
    forked with them)."""
    if jobs <= 1 or len(cells) <= 1:
        under_way()
        return _in_order(url, cells, on_done, stop_when)
    nice = WORKER_NICE if yield_to_server else 0
    return _in_pool(url, cells, jobs, on_done, stop_when, under_way, nice)


def _asked() -> bool:
    return INTERRUPTS.requested


def _in_order(
    url: str, cells: Sequence[Cell], on_done: Progress, stop_when: StopWhen
) -> list[CellOutcome]:
    outcomes: list[CellOutcome] = []
    cell, clients = None, Clients()
    try:
        with INTERRUPTS.polled():  # the cell in flight stops where it is, its figures kept
            for cell in cells:
                outcome = run_cell(url, cell, clients, _asked)
                outcomes.append(outcome)
                on_done(outcome)
                if stop_when(outcome) or INTERRUPTS.requested:
                    break
        if INTERRUPTS.requested:
            raise _Interrupted(outcomes)
    except ForcedQuit:  # asked again while the interrupted cell cleaned up: given up
        raise _Interrupted(outcomes, [cell] if cell else []) from None
    except KeyboardInterrupt:
        raise _Interrupted(outcomes) from None
    finally:
        clients.close()
    return outcomes


# The one server runs every worker's scripts, one at a time: it is the matrix's serial part.
# With twice as many workers as cores it waited for a core longer than it ran (default
# matrix, 2 cores, a busy machine: 3.5-6.7 s waiting for 2.2 s run); with the workers at this
# niceness it preempts one at once (0.3-0.6 s waiting in all; docs/performance.md). With the
# cells taking turns a worker rarely sleeps, and the lowest priority left the server the most
# (quiet machine, `--headless`: 2.45-2.50 s at 19, 2.46-2.53 at 15, 2.51-2.59 at 10, 3.12-3.17
# at 0).
WORKER_NICE = 19


def _in_pool(
    url: str,
    cells: Sequence[Cell],
    jobs: int,
    on_done: Progress,
    stop_when: StopWhen,
    under_way: Callable[[], None],
    nice: int = 0,
) -> list[CellOutcome]:
    done: dict[int, CellOutcome] = {}
    waiting = iter(range(len(cells)))
    halted = False
    shape = cells_per_worker(jobs, len(cells))
    with INTERRUPTS.polled(), Workers(url, cells, shape, nice) as workers:
        try:
            workers.hand_out(waiting)
            under_way()
            while workers.running:
                for worker, got in workers.finished(timeout=0.1):
                    if isinstance(got, BaseException):
                        raise got
                    done[got.index] = got
                    on_done(got)
                    # a worker killed (kill -9, the OOM killer) stops the matrix as a lost
                    # server does: each of its cells in flight came back as an error
                    halted = halted or stop_when(got) or not worker.alive
                if INTERRUPTS.requested:
                    workers.stop_cells()  # each stops where it is and sends its figures so far
                elif not halted:
                    workers.hand_out(waiting)
        except ForcedQuit:
            abandoned = [cells[i] for i in workers.abandon()]
            raise _Interrupted([done[i] for i in sorted(done)], abandoned) from None
        if INTERRUPTS.requested:
            raise _Interrupted([done[i] for i in sorted(done)])
    return [done[i] for i in sorted(done)]


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying the outcomes collected before it (and the cells given up unfinished
    when the request was repeated, more than a moment later, while they ran)."""

    def __init__(self, outcomes: list[CellOutcome], abandoned: Sequence[Cell] = ()) -> None:
        super().__init__()
        self.outcomes = outcomes
        self.abandoned = list(abandoned)


Interrupted = _Interrupted
