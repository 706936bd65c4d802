"""One cell of the matrix (scenario x seed x treatment), run start to end in its own namespace."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import redis

from ckviz.errors import CkvizError, IncompleteRun, RedisUnavailable
from ckviz.metrics import RunMetrics, run_metrics, step_figures, step_run_metrics
from ckviz.model.matrix import Treatment
from ckviz.model.results import (
    ConsumerResult,
    KeyRowResult,
    MetricsResult,
    RunResult,
    StepMetricsResult,
    TimelineResult,
)
from ckviz.model.scenario import Scenario
from ckviz.model.snapshot import ConsumerService
from ckviz.model.steps import FRESH_PREFIX, StepScenario
from ckviz.sim.session import open_cell, open_step_cell
from ckviz.sim.steps import StepRunner
from ckviz.store.preflight import refusal
from ckviz.store.server import connect
from ckviz.timeline import Timeline, service_timeline


@dataclass(frozen=True, slots=True)
class Cell:
    """What to run; `index` fixes its place in the results whatever order cells finish in."""

    index: int
    scenario: Scenario | StepScenario
    seed: str
    treatment: Treatment
    max_count: int
    prefix: str
    check_invariants: bool = True
    step_max_count: int | None = None  # step cells: --max-count, else the scenario's harness
    node_url: str | None = None  # in a Redis Cluster: the primary owning the cell's slot


@dataclass(frozen=True, slots=True)
class CellOutcome:
    index: int
    result: RunResult | None
    error: str | None = None
    exit_code: int = 0
    commands_sent: int = 0  # for the benchmark; the results file counts round trips


def run_cell(url: str, cell: Cell) -> CellOutcome:
    """Run one cell against the server at `url` (in a cluster, at its slot's primary);
    failures come back as a one-line error."""
    client = connect(cell.node_url or url)
    try:
        started = time.perf_counter()
        if isinstance(cell.scenario, StepScenario):
            return _run_step_cell(client, cell, cell.scenario, started)
        with open_cell(
            client,
            cell.scenario,
            cell.seed,
            cell.treatment,
            cell.prefix,
            cell.max_count,
            cell.check_invariants,
        ) as driver:
            driver.run()
            elapsed_ms = (time.perf_counter() - started) * 1000
            events, trips, total = driver.events, driver.round_trips, len(driver.workload)
            sent = driver.commands_sent
            service = driver.turns.service()
        if len(events) < total:
            raise IncompleteRun(
                f"{total - len(events)} of {total} runs never dequeued by t={driver.t} ms"
            )
        weights = cell.scenario.weights()
        metrics = run_metrics(events, weights)
        timeline = service_timeline(events, weights, cell.scenario.light_key)
        result = _with_consumers(_result(cell, metrics, timeline, trips, elapsed_ms), service)
        return CellOutcome(cell.index, result, commands_sent=sent)
    except CkvizError as exc:
        return CellOutcome(cell.index, None, f"{cell_label(cell)}: {exc}", int(exc.exit_code))
    except (redis.RedisError, OSError) as exc:  # e.g. the server gone before the first trip
        reason = " ".join(str(exc).split()) or type(exc).__name__
        cause = refusal(exc)
        message = f"{cell_label(cell)}: " + (
            f"Redis refused: {cause}" if cause else f"lost the Redis server: {reason}"
        )
        return CellOutcome(cell.index, None, message, int(RedisUnavailable.exit_code))
    finally:
        client.close()


def _run_step_cell(
    client: redis.Redis, cell: Cell, scenario: StepScenario, started: float
) -> CellOutcome:
    with open_step_cell(
        client,
        scenario,
        cell.treatment,
        cell.prefix,
        cell.step_max_count,
        cell.check_invariants,
        seed=cell.seed,
    ) as runner:
        runner.run()
        elapsed_ms = (time.perf_counter() - started) * 1000
        trips, sent = runner.round_trips, runner.commands_sent
    result = _result(cell, _step_metrics(runner), None, trips, elapsed_ms)
    result = _with_consumers(result, runner.service())
    result.metrics.steps = _step_figures(runner)
    result.metrics.key_serves = key_serves(runner)
    if runner.version is not None and runner.state is not None:
        result.metrics.vtime_floor_final = runner.state.floor or 0.0
    return CellOutcome(cell.index, result, commands_sent=sent)


def _step_metrics(runner: StepRunner) -> RunMetrics:
    m = step_run_metrics(
        runner.serves, dict.fromkeys(runner.remaining, 1.0), runner.contention, runner.contended
    )
    declared = set(runner.scenario.key_names())  # minted keys get no row of their own
    return replace(m, per_key=tuple(k for k in m.per_key if k.key in declared))


def _step_figures(runner: StepRunner) -> StepMetricsResult:
    f = step_figures(runner.serves, runner.scenario.victims, runner.contention, runner.drain_step)
    calls = sum(c.called for c in runner.calls)
    return StepMetricsResult(**asdict(f), calls=calls)


def key_serves(runner: StepRunner) -> dict[str, int]:
    """Serves per declared key, in declared order, then all minted keys together."""
    counts = dict.fromkeys(runner.scenario.key_names(), 0)
    minted = 0
    for event in runner.serves:
        if event.key in counts:
            counts[event.key] += 1
        else:
            minted += 1
    if runner.scenario.arrivals.fresh_per_call:
        counts[f"{FRESH_PREFIX}*"] = minted
    return counts


def _with_consumers(result: RunResult, service: Sequence[ConsumerService]) -> RunResult:
    """Several consumers: their number and each one's service go into the run's entry (with
    one, nothing does, so a one-consumer file is what it was before consumers existed)."""
    if len(service) > 1:
        result.consumers = len(service)
        result.metrics.per_consumer = [
            ConsumerResult(
                consumer=c.name, dequeued=c.dequeued, calls=c.calls, empty_calls=c.empty_calls
            )
            for c in service
        ]
    return result


def cell_label(cell: Cell) -> str:
    return f"{cell.scenario.name}/{cell.treatment.name}/{cell.seed}"


def _result(
    cell: Cell, m: RunMetrics, timeline: Timeline | None, trips: int, elapsed_ms: float
) -> RunResult:
    """The run's entry; step-harness runs carry no timeline (their clock counts steps)."""
    metrics = MetricsResult(
        total_dequeued=m.total_dequeued,
        redis_round_trips=trips,
        wall_clock_ms=round(elapsed_ms, 3),
        contention_worst_share_over_weight=m.contention_worst_share_over_weight,
        contention_jain=m.contention_jain,
        makespan_ms=m.makespan_ms,
        worst_wait_p99=m.worst_wait_p99,
        worst_wait_max=m.worst_wait_max,
        per_key=[KeyRowResult.model_validate(k, from_attributes=True) for k in m.per_key],
        timeline=TimelineResult.model_validate(timeline, from_attributes=True)
        if timeline
        else None,
    )
    # the step harness runs uncapped (its env limit is its only limit)
    scenario = cell.scenario
    caps = cell.treatment.caps_on(scenario.caps) if isinstance(scenario, Scenario) else None
    return RunResult(
        discipline=cell.treatment.discipline,
        treatment=cell.treatment.name,
        seed=cell.seed,
        per_key_cap=caps.per_key if caps else None,
        total_cap=caps.total if caps else None,
        metrics=metrics,
    )
