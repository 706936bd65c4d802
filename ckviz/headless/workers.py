"""Worker processes that each run several cells at once, taking turns in one thread.

A cell waits on its Redis replies for about half of its time. With one cell per process
(five on two cores) every round trip was a switch between processes taking turns on the
cores; with a thread per cell, a wake-up of the thread and two handovers of the GIL. The cells
of one worker take turns in its one thread instead (store/turns.py): a cell whose trip is sent
hands the thread to the next whose replies are in, and the worker sleeps only when all of them
wait. So `--jobs` counts cells in flight, and they are spread over one worker process per core
(docs/performance.md). A worker of one place has no one to take turns with: its cell reads its
socket straight (`_one_place`).

The parent hands each worker a cell whenever it has a free place, never ahead of that: a cell
handed out cannot be taken back, and would start after the server was lost or a stop was
asked for. Each cell takes a connection of its own (from the worker's pool, `Clients`: the
last cell's, open already), so each keeps its commands, its round trips and its namespace:
the results are what one cell at a time gives.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from ckviz.errors import ExitCode
from ckviz.headless.cells import Cell, CellOutcome, Clients, cell_label, run_cell
from ckviz.store.server import die_with_parent
from ckviz.store.turns import Turns

# On Linux a worker is forked: it starts with ckviz already imported (and the cells known),
# where a spawned one spends a noticeable part of a cell importing it again
# (docs/performance.md). Workers are forked from the parent's main thread before any cell
# starts, and the parent runs no thread of its own. Elsewhere (macOS: fork is unsafe with its
# system libraries) workers are spawned.
if sys.platform == "linux":
    _CONTEXT = multiprocessing.get_context("fork")
else:
    _CONTEXT = multiprocessing.get_context("spawn")

Finished = CellOutcome | BaseException  # what a cell's run gave (raised: ckviz's own bug)
STOP_CELLS = "stop cells"  # from the parent: the cells in flight stop where they are (Ctrl-C)


def cells_per_worker(jobs: int, cells: int, cores: int | None = None) -> list[int]:
    """How `jobs` cells in flight (no more than there are cells) are spread: one worker
    process per core, at most one per cell in flight, the cells split as evenly as they go."""
    in_flight = max(1, min(jobs, cells))
    processes = min(in_flight, cores or os.cpu_count() or 1)
    each, extra = divmod(in_flight, processes)
    return [each + (i < extra) for i in range(processes)]


@dataclass(eq=False)
class Worker:
    """One worker process, the parent's end of its pipe, and the cells it is running."""

    process: BaseProcess
    conn: Connection
    places: int  # cells it runs at once
    running: set[int] = field(default_factory=set)  # places in the cell list
    alive: bool = True

    @property
    def free(self) -> int:
        return self.places - len(self.running) if self.alive else 0


class Workers:
    """The worker processes of one matrix run (a context manager: leaving it stops them,
    waiting for the cells in flight unless they were abandoned)."""

    def __init__(self, url: str, cells: Sequence[Cell], shape: list[int], nice: int) -> None:
        self.cells = cells
        self.workers: list[Worker] = []
        self._stopping = False
        for places in shape:
            ours, theirs = _CONTEXT.Pipe()
            args = (theirs, url, list(cells), os.getpid(), nice, places)
            process = _CONTEXT.Process(target=_worker_main, args=args, daemon=True)
            process.start()
            theirs.close()  # the worker's end lives in the worker only: its death closes it
            self.workers.append(Worker(process, ours, places))

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> list[int]:
        return sorted(i for w in self.workers for i in w.running)

    def hand_out(self, places: Iterator[int]) -> bool:
        """Give each free place the next cell of `places`; False once `places` runs out."""
        for worker in sorted(self.workers, key=lambda w: -w.free):
            while worker.free:
                place = next(places, None)
                if place is None:
                    return False
                if not self._give(worker, place):
                    break
        return True

    def _give(self, worker: Worker, place: int) -> bool:
        worker.running.add(place)
        try:
            worker.conn.send(place)
        except OSError:  # it died since its last reply was read: its next read says so
            return False
        return True

    def finished(self, timeout: float) -> Iterator[tuple[Worker, Finished]]:
        """What the workers finished within `timeout`; a worker that died (kill -9, the OOM
        killer) gives each of its cells in flight as an outcome saying so."""
        live = {w.conn: w for w in self.workers if w.alive and w.running}
        for conn in wait(list(live), timeout):
            worker = live[conn]  # type: ignore[index]
            try:
                place, got = worker.conn.recv()
            except (EOFError, OSError):
                worker.alive = False
                how = _death(worker.process)
                for place in sorted(worker.running):
                    yield worker, _worker_died(self.cells[place], how)
                worker.running.clear()
                continue
            worker.running.discard(place)
            yield worker, got

    def stop_cells(self) -> None:
        """Ask every worker's cells in flight to stop where they are (once)."""
        if self._stopping:
            return
        self._stopping = True
        for worker in self.workers:
            with contextlib.suppress(OSError):
                worker.conn.send(STOP_CELLS)

    def stop(self) -> None:
        """Tell every worker it is done and wait for it (its cells in flight finish first)."""
        try:
            for worker in self.workers:
                with contextlib.suppress(OSError):
                    worker.conn.send(None)
            for worker in self.workers:
                worker.process.join()
        except BaseException:  # asked to stop again while waiting: stop waiting
            self.abandon()
            raise
        finally:
            for worker in self.workers:
                worker.conn.close()

    def abandon(self) -> list[int]:
        """Kill every worker at once; the places of the cells given up (the namespace sweep
        deletes their keys)."""
        given_up = self.running
        for worker in self.workers:
            with contextlib.suppress(OSError, ValueError):
                worker.process.kill()
            worker.alive = False
            worker.running.clear()
        for worker in self.workers:
            worker.process.join()
        return given_up


def _death(process: BaseProcess) -> str:
    """How a worker whose pipe closed ended: the signal that killed it, else its exit code."""
    process.join(timeout=1)
    code = process.exitcode
    if code is None:
        return "its pipe closed"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def _worker_died(cell: Cell, how: str) -> CellOutcome:
    message = f"{cell_label(cell)}: its worker process died ({how})"
    return CellOutcome(cell.index, None, message, int(ExitCode.CHECK_FAILED))


def _worker_main(
    conn: Connection, url: str, cells: list[Cell], parent_pid: int, nice: int, places: int
) -> None:
    """In the worker: run each cell the parent names, its cells taking turns, send back what
    each gave, until the parent says it is done (None) or is gone; then finish the cells in
    flight. The parent never names more cells than the worker's places."""
    _worker_init(parent_pid, nice)
    if places == 1:
        _one_place(conn, url, cells)
        return
    turns, clients = Turns(), Clients()  # the worker's cells, and their connections
    stopping = threading.Event()  # the parent asked the cells in flight to stop

    def listen() -> None:
        try:
            while turns.wait(conn.fileno(), None) and (place := conn.recv()) is not None:
                if place == STOP_CELLS:
                    stopping.set()
                    continue
                turns.start(_cell_task(conn, url, cells[place], place, clients, stopping))
        except (EOFError, OSError):
            pass  # the parent is gone: finish what is in flight, then leave

    turns.start(listen)
    try:
        turns.run()
    finally:
        clients.close()


def _one_place(conn: Connection, url: str, cells: list[Cell]) -> None:
    """A worker of one place (`--jobs` no more than the cores: a day's replay, one cell per
    discipline) runs its cells one after the other, each reading its replies straight from
    its socket: with nothing to take turns with, a hub cost each trip a poll and two
    switches, ~10 us of a run's ~110 us of client CPU. The parent's words are read between
    cells, and while one runs whenever it asks whether to stop (every few hundred rounds): a
    stop is heard there, any other word waits for the cell's end."""
    clients = Clients()
    words: list[Any] = []  # read while a cell ran, for after it
    stopping = [False]

    def stop_asked() -> bool:
        try:
            while conn.poll():
                word = conn.recv()
                if word == STOP_CELLS:
                    stopping[0] = True
                else:
                    words.append(word)
        except (EOFError, OSError):
            words.append(None)  # the parent is gone: finish the cell, then leave
        return stopping[0]

    try:
        while True:
            try:
                place = words.pop(0) if words else conn.recv()
            except (EOFError, OSError):
                return
            if place is None:
                return
            if place == STOP_CELLS:
                stopping[0] = True
                continue
            got: Finished
            try:
                got = run_cell(url, cells[place], clients, stop_asked)
            except BaseException as exc:  # the parent raises it, as a pool's caller would
                got = exc
            _reply(conn, place, got)
    finally:
        clients.close()


def _cell_task(
    conn: Connection,
    url: str,
    cell: Cell,
    place: int,
    clients: Clients,
    stopping: threading.Event,
) -> Callable[[], None]:
    def run() -> None:
        got: Finished
        try:
            got = run_cell(url, cell, clients, stopping.is_set)
        except BaseException as exc:  # the parent raises it, as a pool's caller would
            got = exc
        _reply(conn, place, got)

    return run


def _reply(conn: Connection, place: int, got: object) -> None:
    try:
        conn.send((place, got))
    except (EOFError, OSError):
        pass  # the parent is gone
    except Exception as exc:  # what cannot be pickled still says what it was
        conn.send((place, RuntimeError(f"{type(got).__name__}: {got} ({exc})")))


def _worker_init(parent_pid: int, nice: int) -> None:
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
