"""`ckviz --headless`: run the plan's cells on a workspace, with their progress; the end
(results, tables, exit code) is headless/ending.py's."""

from __future__ import annotations

import contextlib
import importlib
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from redis.cluster import RedisCluster

from ckviz.errors import RedisUnavailable
from ckviz.headless.cells import Cell, CellOutcome
from ckviz.headless.consoles import Consoles
from ckviz.headless.events import spool_folder
from ckviz.headless.runner import Interrupted, run_cells
from ckviz.model.clock import clock_of
from ckviz.model.matrix import Treatment
from ckviz.model.results import RunResult, SweepInfo
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario
from ckviz.outputs.writer import Output
from ckviz.sim.clocks import treatment_runs_on
from ckviz.sim.footprint import Need, need_of
from ckviz.sim.workspace import ServerChoice, open_workspace
from ckviz.store.cluster import Keyspace, cell_tag, route_cells
from ckviz.store.server import RedisServer

if TYPE_CHECKING:
    from rich.console import Console


@dataclass(frozen=True)
class MatrixPlan:
    """Everything `--headless` will run, already validated."""

    scenarios: list[Scenario | StepScenario]
    seeds: list[str]
    treatments: list[Treatment]
    max_count: int
    jobs: int
    out: Output
    check: bool = False
    check_invariants: bool = True
    quiet: bool = False  # --quiet: no tables, no progress, only errors and warnings
    step_max_count: int | None = None  # --max-count for step-harness scenarios
    junit: Output | None = None  # --junit: the --check rules as JUnit XML
    summary_md: Output | None = None  # --summary-md: the Markdown report
    step_summary: Path | None = None  # GITHUB_STEP_SUMMARY: the Markdown report, appended
    shard: tuple[int, int] | None = None  # --shard K/N: run only cells K-1, K-1+N, ...
    flag_caps: tuple[int | None, int | None] = (None, None)  # --per-key-cap, --total-cap
    consumers: int | str | None = None  # --consumers: a count for every treatment, or a mix
    clock_limit_ms: int | None = None  # --clock-limit-ms or the matrix's, on every scenario
    events: Output | None = None  # --events: every dequeue as JSON Lines
    sweeps: Mapping[str, SweepInfo] = field(default_factory=dict)  # [sweep] variants by name

    def need(self) -> Need:
        """The most ckviz may hold on the server at once: `jobs` cells of the largest
        scenario, each with every run queued (the worst case: all arrive at once)."""
        in_flight = min(self.jobs, len(self.scenarios) * len(self.treatments) * len(self.seeds))
        return need_of(self.scenarios, lanes=in_flight)

    def cells(self, namespace: str) -> list[Cell]:
        """Every (scenario, treatment, seed) that applies: a step-harness scenario runs the
        step disciplines only, once (it draws nothing at random, so seeds do not matter)."""
        cells: list[Cell] = []
        for scenario in self.scenarios:
            # a replayed trace is the same under every seed: one run per treatment is enough
            once = not clock_of(scenario).seeded or scenario.replay is not None
            seeds = self.seeds[:1] if once else self.seeds
            for treatment in self.treatments:
                if treatment_runs_on(treatment, scenario):
                    for seed in seeds:
                        i = len(cells)
                        prefix = f"{namespace}{cell_tag(i)}:"  # one hash slot per cell
                        cell = Cell(i, scenario, seed, treatment, self.max_count, prefix)
                        cells.append(
                            replace(
                                cell,
                                check_invariants=self.check_invariants,
                                step_max_count=self.step_max_count,
                            )
                        )
        return cells

    def my_cells(self, namespace: str) -> list[Cell]:
        """The cells this invocation runs: all, or its shard's deterministic slice."""
        cells = self.cells(namespace)
        if self.shard is None:
            return cells
        k, n = self.shard
        return [c for c in cells if c.index % n == k - 1]


def run_matrix(plan: MatrixPlan, choice: ServerChoice, consoles: Consoles) -> int:
    """Run the plan on the server `choice` names; results are written whatever happens.
    Returns the exit code.

    Keys go under a namespace claimed on the server, swept at the end even on failure. A cell
    that loses the server stops the matrix: later cells would only fail the same way."""
    with spool_folder(plan.events is not None) as spool:
        with open_workspace(choice, plan.need(), allow_cluster=True) as workspace:
            server = workspace.server
            cells = _routed(plan.my_cells(workspace.namespace), server, workspace.keyspace)
            cells = [replace(c, events_spool=spool) for c in cells]
            started = time.perf_counter()
            outcomes, stop = _run_with_progress(server, cells, plan.jobs, consoles, plan.quiet)
        wall_s = time.perf_counter() - started
        from ckviz.headless.ending import CellsRun, finish  # loaded while the cells ran

        run = CellsRun(
            server, outcomes, len(cells), stop, wall_s, workspace.left, workspace.evicted, spool
        )
        return finish(plan, run, consoles)


def _routed(cells: list[Cell], server: RedisServer, keyspace: Keyspace) -> list[Cell]:
    """In a cluster, each cell goes to the primary owning its slot (checked before the first
    cell runs); elsewhere the cells run on the one server."""
    if not server.cluster or not isinstance(keyspace, RedisCluster):
        return cells
    routes = route_cells(keyspace, server.url, [c.prefix for c in cells])
    return [replace(c, node_url=routes[c.prefix]) for c in cells]


# What only the matrix's end uses, loaded while the cells run: the parent's start is the one
# stretch where a core idles (every cell waits for it), the cells' the one where it does not.
_FOR_THE_END = ("ckviz.headless.ending",)


def _run_with_progress(
    server: RedisServer, cells: list[Cell], jobs: int, consoles: Consoles, quiet: bool
) -> tuple[list[CellOutcome], Interrupted | None]:
    # a shard's cells keep the matrix's indices; the count shown is the place in this run
    place = {cell.index: i for i, cell in enumerate(cells)}
    with contextlib.ExitStack() as later:
        advance: list[Callable[[], None]] = []

        def under_way() -> None:  # the workers run their first cells (none are forked later)
            for name in _FOR_THE_END:
                importlib.import_module(name)
            advance.append(later.enter_context(_progress_bar(consoles.stderr, quiet, len(cells))))

        def on_done(outcome: CellOutcome) -> None:
            cell = cells[place[outcome.index]]
            status = outcome.error or _cell_line(outcome.result)
            if not quiet:
                consoles.line(
                    f"[{place[outcome.index] + 1}/{len(cells)}] {cell.scenario.name} "
                    f"{cell.treatment.name} {cell.seed}: {status}"
                )
            advance[0]()

        try:
            own = yields_to_server(server)
            outcomes = run_cells(server.url, cells, jobs, on_done, _lost_server, own, under_way)
            return outcomes, None
        except Interrupted as stop:
            return stop.outcomes, stop


def yields_to_server(server: RedisServer) -> bool:
    """The workers yield the cores to the server only when it is the one ckviz started on
    this machine: a server named by URL (or Docker's) is not in their scheduling group, may
    be on another machine, and lower-priority workers would only yield to everything else."""
    return server.mode == "embedded" and server.pid is not None


def _lost_server(outcome: CellOutcome) -> bool:
    return outcome.exit_code == RedisUnavailable.exit_code


def _cell_line(result: RunResult | None) -> str:
    if result is None:
        return "-"
    m = result.metrics
    return (
        f"worst share {m.contention_worst_share_over_weight:.5f}, "
        f"{m.redis_round_trips} trips, {m.wall_clock_ms:.0f} ms"
    )


@contextlib.contextmanager
def _progress_bar(console: Console, quiet: bool, total: int) -> Iterator[Callable[[], None]]:
    """A bar of cells done on a terminal, gone when the run ends; its `advance`. Elsewhere
    (a CI log, a file: nothing would be drawn) nothing: no drawing thread, and rich's live
    display not even imported."""
    if quiet or not console.is_interactive:
        yield lambda: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bar = Progress(
        TextColumn("[bold]ckviz"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    with bar:
        task = bar.add_task("cells", total=total)
        yield lambda: bar.advance(task)


MAX_DEFAULT_JOBS = 16  # one server serves every cell in flight: past a dozen or so it is the limit


def max_jobs() -> int:
    """The most cells in flight `--jobs` may ask for: each holds its scenario's runs on the
    server and its own in the worker's memory, and past a few per core they only queue for
    the cores and the one server (200 asked for, when each was a process, forked 78 workers
    and ~4 GB before this cap)."""
    return max(4 * (os.cpu_count() or 1), MAX_DEFAULT_JOBS)


def default_jobs() -> int:
    """Three cells in flight per core (taking turns in one worker process per core): a cell
    waits on Redis's replies for about half of its time, and while one waits another
    advances its own (measured with bench/scaling.py: docs/performance.md)."""
    return min(3 * (os.cpu_count() or 1), MAX_DEFAULT_JOBS)
