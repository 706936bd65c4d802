"""`ckviz --headless`: plan the matrix, run it, write results, print tables, pick the exit code."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from redis.cluster import RedisCluster
from rich.console import Console

from ckviz import __version__
from ckviz.errors import ExitCode, RedisUnavailable, UsageError, one_line
from ckviz.headless.cells import Cell, CellOutcome
from ckviz.headless.checks import evaluate
from ckviz.headless.ci_outputs import write_ci_outputs
from ckviz.headless.events import spool_folder, write_events
from ckviz.headless.report import print_checks, print_tables
from ckviz.headless.runner import Interrupted, run_cells
from ckviz.headless.shards import figures_digest, matrix_digest
from ckviz.headless.summary import scenario_result
from ckviz.model.clock import clock_of, on_steps
from ckviz.model.matrix import Treatment
from ckviz.model.results import (
    MatrixInfo,
    RedisInfo,
    Results,
    RunResult,
    ShardInfo,
    SweepInfo,
)
from ckviz.model.results_file import write_results
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario
from ckviz.outputs.interrupts import INTERRUPTS
from ckviz.outputs.writer import Output, OutputError
from ckviz.sim.clocks import treatment_runs_on
from ckviz.sim.collector import roomy_young_generation
from ckviz.sim.footprint import Need, need_of
from ckviz.sim.workspace import ServerChoice, open_workspace
from ckviz.store.cluster import Keyspace, cell_tag, route_cells
from ckviz.store.server import RedisServer


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


def run_matrix(plan: MatrixPlan, choice: ServerChoice, stdout: Console, stderr: Console) -> int:
    """Run the plan on the server `choice` names; results are written whatever happens.
    Returns the exit code.

    Keys go under a namespace claimed on the server, swept at the end even on failure. A cell
    that loses the server stops the matrix: later cells would only fail the same way."""
    with spool_folder(plan.events is not None) as spool:
        return _run_matrix(plan, choice, stdout, stderr, spool)


def _run_matrix(
    plan: MatrixPlan, choice: ServerChoice, stdout: Console, stderr: Console, spool: str | None
) -> int:
    with open_workspace(choice, plan.need(), allow_cluster=True) as workspace:
        server = workspace.server
        cells = _routed(plan.my_cells(workspace.namespace), server, workspace.keyspace)
        cells = [replace(c, events_spool=spool) for c in cells]
        started = time.perf_counter()
        outcomes, stop = _run_with_progress(server, cells, plan.jobs, stderr, plan.quiet)
    left = workspace.left
    interrupted = stop is not None
    errors = [o.error for o in outcomes if o.error]
    error = "interrupted (Ctrl-C)" if interrupted else (errors[0] if errors else None)
    if error and len(errors) > 1:
        error += f" (and {len(errors) - 1} more failed cells)"
    if left:
        error = f"{error}; {left}" if error else left
    complete = not interrupted and len(outcomes) == len(cells) and not errors
    results = assemble(plan, server, outcomes, time.perf_counter() - started, error, complete)
    results.redis.evicted_keys = workspace.evicted
    if plan.check:
        results.checks = evaluate([s for s in plan.scenarios if not on_steps(s)], results.scenarios)
    # tables go to stderr when the results (or the events) go to stdout, which then holds
    # only the file; --quiet prints none on either
    on_stdout = plan.out.is_stdout or (plan.events is not None and plan.events.is_stdout)
    _write_and_print(results, plan.out, None if plan.quiet else stderr if on_stdout else stdout)
    if not plan.quiet:
        stderr.print(f"results: {plan.out}", highlight=False, markup=False, soft_wrap=True)
    events_written = _write_events(plan, spool, [o.index for o in outcomes], stderr)
    outputs_written = _write_ci_outputs(plan, results, stderr) and events_written
    if stop is not None and stop.abandoned:
        stderr.print(
            f"ckviz: interrupted again: gave up waiting for {len(stop.abandoned)} cell(s) in "
            "flight, whose runs are not in the results; partial results written",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        return ExitCode.INTERRUPTED
    if interrupted:
        stderr.print("ckviz: interrupted; partial results written", highlight=False)
        return ExitCode.INTERRUPTED
    if errors or left:
        line = one_line(str(error))
        stderr.print(f"ckviz: error: {line}", highlight=False, markup=False, soft_wrap=True)
        return max([o.exit_code for o in outcomes if o.error] or [ExitCode.KEYS_LEFT])
    if any(c.status == "failed" for c in results.checks or []):
        return ExitCode.CHECK_FAILED
    return ExitCode.OK if outputs_written else ExitCode.USAGE


def _routed(cells: list[Cell], server: RedisServer, keyspace: Keyspace) -> list[Cell]:
    """In a cluster, each cell goes to the primary owning its slot (checked before the first
    cell runs); elsewhere the cells run on the one server."""
    if not server.cluster or not isinstance(keyspace, RedisCluster):
        return cells
    routes = route_cells(keyspace, server.url, [c.prefix for c in cells])
    return [replace(c, node_url=routes[c.prefix]) for c in cells]


def _write_events(plan: MatrixPlan, spool: str | None, indices: list[int], stderr: Console) -> bool:
    """--events, after the results file; False if it could not be written."""
    if plan.events is None or spool is None:
        return True
    try:
        with INTERRUPTS.saving():
            write_events(plan.events, spool, indices)
    except OutputError as exc:
        stderr.print(f"ckviz: error: {exc}", highlight=False, markup=False, soft_wrap=True)
        return False
    if not plan.quiet:
        stderr.print(f"events: {plan.events}", highlight=False, markup=False, soft_wrap=True)
    return True


def _write_ci_outputs(plan: MatrixPlan, results: Results, stderr: Console) -> bool:
    """JUnit and Markdown summaries, after the results file; False if one could not be written."""
    label = "results" if plan.out.is_stdout else Path(plan.out.text).stem
    try:
        with INTERRUPTS.saving():
            lines = write_ci_outputs(results, label, plan.junit, plan.summary_md, plan.step_summary)
    except (UsageError, OutputError) as exc:
        stderr.print(f"ckviz: error: {exc}", highlight=False, markup=False, soft_wrap=True)
        return False
    for line in [] if plan.quiet else lines:
        stderr.print(line, highlight=False, markup=False, soft_wrap=True)
    return True


def _write_and_print(results: Results, out: Output, tables: Console | None) -> None:
    """Write the results, then print the tables on `tables` (None: --quiet); a failed write
    (OutputError: the results went to the temp folder) is raised after the tables, which
    still show the figures."""
    unwritten: OutputError | None = None
    try:
        with roomy_young_generation():  # every run's figures turned into text, run by run
            write_results(results, out)
    except OutputError as exc:
        unwritten = exc
    if tables is not None:
        print_tables(results, tables)
        if results.checks is not None:
            print_checks(results.checks, tables)
    if unwritten is not None:
        raise unwritten


def _run_with_progress(
    server: RedisServer, cells: list[Cell], jobs: int, stderr: Console, quiet: bool
) -> tuple[list[CellOutcome], Interrupted | None]:
    # a shard's cells keep the matrix's indices; the count shown is the place in this run
    place = {cell.index: i for i, cell in enumerate(cells)}
    with _progress_bar(stderr, quiet, len(cells)) as advance:

        def on_done(outcome: CellOutcome) -> None:
            cell = cells[place[outcome.index]]
            status = outcome.error or _cell_line(outcome.result)
            if not quiet:
                stderr.print(
                    f"[{place[outcome.index] + 1}/{len(cells)}] {cell.scenario.name} "
                    f"{cell.treatment.name} {cell.seed}: {status}",
                    highlight=False,
                    markup=False,
                    soft_wrap=True,
                )
            advance()

        try:
            own = yields_to_server(server)
            return run_cells(server.url, cells, jobs, on_done, _lost_server, own), None
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


def assemble(
    plan: MatrixPlan,
    server: RedisServer,
    outcomes: Sequence[CellOutcome],
    wall_s: float,
    error: str | None,
    complete: bool,
) -> Results:
    labels = [t.name for t in plan.treatments]
    seeds_of = {
        s.name: plan.seeds if clock_of(s).seeded else plan.seeds[:1] for s in plan.scenarios
    }
    by_scenario: dict[str, list[RunResult]] = {s.name: [] for s in plan.scenarios}
    scenario_of = {c.index: c.scenario.name for c in plan.cells("")}
    for outcome in sorted(outcomes, key=lambda o: o.index):
        if outcome.result is not None:
            by_scenario[scenario_of[outcome.index]].append(outcome.result)
    results = Results(
        ckviz_version=__version__,
        complete=complete,
        error=error,
        redis=RedisInfo(version=server.version, mode=server.mode),
        matrix=MatrixInfo(
            scenarios=[s.name for s in plan.scenarios],
            seeds=plan.seeds,
            disciplines=labels,
            max_count=plan.max_count,
            per_key_cap=plan.flag_caps[0],
            total_cap=plan.flag_caps[1],
            consumers=plan.consumers,
            clock_limit_ms=plan.clock_limit_ms,
        ),
        wall_clock_s=round(wall_s, 3),
        scenarios=[
            scenario_result(
                s, labels, seeds_of[s.name], by_scenario[s.name], plan.sweeps.get(s.name)
            )
            for s in plan.scenarios
            if by_scenario[s.name]
        ],
    )
    if plan.shard is not None:
        results.shard = shard_info(plan, results, server.version)
    return results


def shard_info(plan: MatrixPlan, results: Results, redis_version: str) -> ShardInfo:
    """Which slice this is, and the digests `ckviz merge` checks the slices against."""
    assert plan.shard is not None
    flags = {**results.matrix.model_dump(mode="json"), "step_max_count": plan.step_max_count}
    return ShardInfo(
        index=plan.shard[0],
        count=plan.shard[1],
        cells=len(plan.my_cells("")),
        matrix_cells=len(plan.cells("")),
        matrix_digest=matrix_digest(
            plan.scenarios, plan.treatments, flags, plan.sweeps, redis_version
        ),
        figures_digest=figures_digest(results.scenarios, results.complete),
    )


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


PIPED_WIDTH = 10_000  # wider than any table: piped tables are never cut with "…"


def stdout_console(quiet: bool = False) -> Console:
    """Tables on stdout, none with --quiet. Piped (a CI log, a file, `| less`), no colours and a
    width no table reaches, so every figure is printed whole whatever the terminal's width."""
    console = Console(file=sys.stdout, quiet=quiet)
    if not console.is_terminal:
        console = Console(file=sys.stdout, width=PIPED_WIDTH, no_color=True, quiet=quiet)
    return console
