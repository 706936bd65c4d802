"""The matrix's end, once its cells are done: their outcomes assembled into the results, the
results file written, the tables printed, then --events and the CI outputs; the exit code.

Only the parent's end needs this module and what it imports (rich's tables, the report's
views): it is loaded while the workers run the cells (headless/matrix.py, `under_way`), not
before they start."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ckviz import __version__
from ckviz.errors import ExitCode, UsageError, one_line
from ckviz.headless.cells import CellOutcome
from ckviz.headless.checks import evaluate
from ckviz.headless.ci_outputs import error_annotations, write_ci_outputs
from ckviz.headless.consoles import Consoles
from ckviz.headless.events import write_events
from ckviz.headless.report import print_checks, print_tables
from ckviz.headless.runner import Interrupted
from ckviz.headless.shards import figures_digest, matrix_digest
from ckviz.headless.summary import scenario_result
from ckviz.model.lineup import flag_consumers
from ckviz.model.results import MatrixInfo, RedisInfo, Results, RunResult, ShardInfo
from ckviz.model.results_file import write_results
from ckviz.outputs.interrupts import INTERRUPTS
from ckviz.outputs.writer import Output, OutputError
from ckviz.sim.engine import roomy_young_generation
from ckviz.store.server import RedisServer

if TYPE_CHECKING:
    from rich.console import Console

    from ckviz.headless.plan import MatrixPlan


@dataclass(frozen=True)
class CellsRun:
    """What running the cells left: their outcomes (in cell order) of the `planned` cells, the
    stop that cut them short (if any), their wall seconds, and the workspace's word on the keys
    (`left`: what its sweep could not delete; `evicted`: keys the server evicted meanwhile)."""

    server: RedisServer
    outcomes: list[CellOutcome]
    planned: int
    stop: Interrupted | None
    wall_s: float
    left: str | None
    evicted: int | None
    spool: str | None  # --events: the folder the cells spooled their dequeues to


def finish(plan: MatrixPlan, run: CellsRun, consoles: Consoles) -> int:
    """Assemble, write and print what the cells gave (whatever happened to them); the exit code."""
    errors = [o.error for o in run.outcomes if o.error]
    error = _error_line(run, errors)
    complete = run.stop is None and len(run.outcomes) == run.planned and not errors
    results = assemble(plan, run.server, run.outcomes, run.wall_s, error, complete)
    results.redis.evicted_keys = run.evicted
    if plan.check:
        results.checks = evaluate(plan.scenarios, results.scenarios)  # a step scenario has none
    stderr = consoles.stderr
    # tables go to stderr when the results (or the events) go to stdout, which then holds
    # only the file; --quiet prints none on either
    on_stdout = plan.out.is_stdout or (plan.events is not None and plan.events.is_stdout)
    _write_and_print(
        results, plan.out, None if plan.quiet else stderr if on_stdout else consoles.stdout
    )
    if not plan.quiet:
        stderr.print(f"results: {plan.out}", highlight=False, markup=False, soft_wrap=True)
    else:  # --quiet prints no table, but a failed rule still annotates the CI run (on
        # stderr: stdout may hold the results file)
        for line in error_annotations(results.checks or []):
            stderr.print(line, highlight=False, markup=False, soft_wrap=True)
    events_written = _write_events(plan, run.spool, [o.index for o in run.outcomes], stderr)
    outputs_written = _write_ci_outputs(plan, results, stderr) and events_written
    if run.stop is not None:
        return _interrupted(run.stop, stderr)
    if errors or run.left:
        line = one_line(str(error))
        stderr.print(f"ckviz: error: {line}", highlight=False, markup=False, soft_wrap=True)
        return max([o.exit_code for o in run.outcomes if o.error] or [ExitCode.KEYS_LEFT])
    if any(c.status == "failed" for c in results.checks or []):
        return ExitCode.CHECK_FAILED
    return ExitCode.OK if outputs_written else ExitCode.USAGE


def _error_line(run: CellsRun, errors: list[str]) -> str | None:
    """The results' `error`: the stop or the first failed cell (and how many more), then what
    the sweep left."""
    error = "interrupted (Ctrl-C)" if run.stop is not None else (errors[0] if errors else None)
    if error and len(errors) > 1:
        error += f" (and {len(errors) - 1} more failed cells)"
    if run.left:
        error = f"{error}; {run.left}" if error else run.left
    return error


def _interrupted(stop: Interrupted, stderr: Console) -> int:
    if stop.abandoned:
        stderr.print(
            f"ckviz: interrupted again: gave up waiting for {len(stop.abandoned)} cell(s) in "
            "flight, whose runs are not in the results; partial results written",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    else:
        stderr.print("ckviz: interrupted; partial results written", highlight=False)
    return ExitCode.INTERRUPTED


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


def assemble(
    plan: MatrixPlan,
    server: RedisServer,
    outcomes: Sequence[CellOutcome],
    wall_s: float,
    error: str | None,
    complete: bool,
) -> Results:
    labels = [t.name for t in plan.treatments]
    seeds_of = {s.name: plan.seeds if s.clock.seeded else plan.seeds[:1] for s in plan.scenarios}
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
            consumers=flag_consumers(plan.consumers),
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
