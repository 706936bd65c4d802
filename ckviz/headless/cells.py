"""One cell of the matrix (scenario x seed x treatment), run start to end in its own namespace."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import redis

from ckviz.errors import CkvizError, ExitCode, IncompleteRun, RedisUnavailable
from ckviz.fairness import OwnLimit
from ckviz.fairness_intervals import resampled_attainment
from ckviz.fairness_tenants import tenant_figures
from ckviz.fairness_windows import Windows
from ckviz.headless.events import EventLine, spool_path, spooling
from ckviz.headless.progress import LONG_RUNS, CellProgress
from ckviz.inputs.trace import TraceProblems
from ckviz.metrics import outcome_metrics, step_figures
from ckviz.model.matrix import Treatment
from ckviz.model.results import (
    ConsumerResult,
    MetricsResult,
    RunResult,
)
from ckviz.model.scenario import Scenario
from ckviz.model.snapshot import ConsumerService
from ckviz.model.steps import StepScenario
from ckviz.model.tenants import is_one_grain
from ckviz.outputs.writer import OutputError
from ckviz.sim.clocks import EngineOptions, open_engine
from ckviz.sim.engine import DequeueSink, Engine, Outcome, roomy_young_generation
from ckviz.store.preflight import refusal
from ckviz.store.server import connect, server_run_id
from ckviz.timeline import service_timeline

StopAsked = Callable[[], bool]  # whether the cells in flight are asked to stop now


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
    events_spool: str | None = None  # --events: the folder its dequeues are spooled to
    server_run_id: str | None = None  # its server's run id when the matrix began
    progress: bool = False  # a line on stderr now and then while it runs long (not --quiet)


@dataclass(frozen=True, slots=True)
class CellOutcome:
    index: int
    result: RunResult | None
    error: str | None = None
    exit_code: int = 0
    commands_sent: int = 0  # for the benchmark; the results file counts round trips


class Clients:
    """One client, so one connection pool, per server for the cells a process runs: a cell
    takes its connections from the pool and gives them back when it ends, and the next cell
    finds them open. Opening one (a socket, redis-py's CLIENT SETINFO handshake, closing it
    again) cost ~0.3 ms of CPU a cell; the cells' own commands are the same either way."""

    def __init__(self) -> None:
        self._by_url: dict[str, redis.Redis] = {}

    def __call__(self, url: str) -> redis.Redis:
        client = self._by_url.get(url)
        if client is None:
            client = self._by_url[url] = connect(url)
        return client

    def close(self) -> None:
        for client in self._by_url.values():
            client.close()
        self._by_url.clear()


def _never() -> bool:
    return False


def run_cell(
    url: str, cell: Cell, clients: Clients | None = None, stop: StopAsked = _never
) -> CellOutcome:
    """Run one cell against the server at `url` (in a cluster, at its slot's primary);
    failures come back as a one-line error. Its connections come from `clients`' pool, else
    from a client of its own. Once `stop()` holds (asked every PROGRESS_ROUNDS rounds), the
    run stops where it is and its entry holds the figures so far (`stopped_at`)."""
    own = clients is None
    clients = Clients() if clients is None else clients
    client = clients(cell.node_url or url)
    try:
        _check_same_server(client, cell.server_run_id)
        with contextlib.ExitStack() as spool:
            options = EngineOptions(
                cell.max_count,
                cell.step_max_count,
                cell.check_invariants,
                keep_events=False,  # the figures read the ledger's tape
                on_dequeue=_spooling(cell, spool),
            )
            started = time.perf_counter()
            with open_engine(
                client, cell.scenario, cell.seed, cell.treatment, cell.prefix, options
            ) as engine:
                stopped = _run(engine, _progress(cell), stop)
                elapsed_ms = (time.perf_counter() - started) * 1000
                outcome, waiting = engine.outcome(), engine.waiting_since()
        try:
            with roomy_young_generation():  # the figures of every key: as many as a trip
                if stopped:
                    s, t = cell.scenario, cell.treatment
                    result = run_result(s, t, cell.seed, outcome, elapsed_ms, waiting)
                    result.stopped_at = outcome.t
                else:
                    result = _result(cell, outcome, elapsed_ms, waiting)
        finally:
            outcome.dequeues.close()
        return CellOutcome(cell.index, result, commands_sent=outcome.commands_sent)
    except CkvizError as exc:
        return CellOutcome(cell.index, None, f"{cell_label(cell)}: {exc}", int(exc.exit_code))
    except TraceProblems as exc:  # its trace changed since it was checked
        return CellOutcome(cell.index, None, f"{cell_label(cell)}: {exc}", int(ExitCode.USAGE))
    except (redis.RedisError, OSError) as exc:  # e.g. the server gone before the first trip
        reason = " ".join(str(exc).split()) or type(exc).__name__
        cause = refusal(exc)
        message = f"{cell_label(cell)}: " + (
            f"Redis refused: {cause}" if cause else f"lost the Redis server: {reason}"
        )
        return CellOutcome(cell.index, None, message, int(RedisUnavailable.exit_code))
    finally:
        if own:
            clients.close()


class _Stopped(Exception):
    """A stop request, heard between two rounds of a cell's run."""


def _run(engine: Engine, progress: CellProgress | None, stop: StopAsked) -> bool:
    """Run the engine to its end, or until `stop()` holds (then True)."""

    def heard(dequeued: int, t: int) -> None:
        if stop():
            raise _Stopped
        if progress is not None:
            progress(dequeued, t)

    try:
        engine.run(heard)
    except _Stopped:
        return True
    return False


def _progress(cell: Cell) -> CellProgress | None:
    """A reporter for a long cell's progress (--quiet, or fewer than LONG_RUNS: none)."""
    if not cell.progress or cell.scenario.total_runs < LONG_RUNS:
        return None
    return CellProgress(cell_label(cell), cell.scenario.total_runs, cell.scenario.clock.unit)


def _check_same_server(client: redis.Redis, began_on: str | None) -> None:
    """Refuse to start on a server restarted since the matrix began: between cells no
    connection is in use, and the pool would open one onto the new, empty server without a
    word; the namespace's claim (and any key a cell counts on) went with the old one."""
    if began_on is None:
        return
    now = server_run_id(client)
    if now is not None and now != began_on:
        raise RedisUnavailable(
            f"the Redis server restarted since the matrix began (run id {began_on[:8]}... "
            f"then, {now[:8]}... now): its memory, the namespace's claim with it, is gone"
        )


def _spooling(cell: Cell, stack: contextlib.ExitStack[bool | None]) -> DequeueSink | None:
    """With --events, the cell's spool file, open in `stack`, and what writes each dequeue
    to it as it happens (an OSError is not the server's)."""
    if cell.events_spool is None:
        return None
    line = EventLine(cell.scenario.name, cell.treatment.name, cell.seed, cell.scenario.clock.unit)
    try:
        return stack.enter_context(spooling(spool_path(cell.events_spool, cell.index), line))
    except OSError as exc:
        raise OutputError(f"--events: cannot spool its dequeues ({exc.strerror or exc})") from None


def _result(cell: Cell, outcome: Outcome, elapsed_ms: float, waiting: dict[str, int]) -> RunResult:
    """The finished run's entry (a millisecond run must have dequeued every run)."""
    dequeued, total = len(outcome.dequeues), outcome.total_runs
    if outcome.settled is not None and outcome.settled < total:  # the run lifecycle's
        left = total - outcome.settled
        raise IncompleteRun(f"{left} of {total} runs neither done, dead-lettered nor expired")
    if outcome.steps is None and outcome.settled is None and dequeued < total:
        raise IncompleteRun(
            f"{total - dequeued} of {total} runs never dequeued by t={outcome.t} ms"
        )
    return run_result(cell.scenario, cell.treatment, cell.seed, outcome, elapsed_ms, waiting)


def run_result(
    scenario: Scenario | StepScenario,
    treatment: Treatment,
    seed: str,
    outcome: Outcome,
    elapsed_ms: float,
    waiting: dict[str, int] | None = None,
) -> RunResult:
    """A run's entry in the results, finished or not (the app exports a run part way): its
    figures (one path for both clocks), its service per consumer, and what only the step
    clock counts. `waiting`: the engine's keys left with runs."""
    treatment = treatment.facing(scenario.mix)  # a scenario's mix (model/matrix.py)
    dequeues = outcome.dequeues
    metrics = outcome_metrics(outcome, waiting, round(elapsed_ms, 3))
    if outcome.steps is None:  # step-harness runs carry no timeline (their clock counts steps)
        metrics.timeline = service_timeline(dequeues, outcome.weights, scenario.light_key)
    caps = None  # the step harness runs uncapped (its env limit is its only limit)
    if scenario.clock.capped:
        caps = treatment.caps_on(scenario.caps)
    result = RunResult(
        discipline=treatment.discipline,
        treatment=treatment.name,
        seed=seed,
        per_key_cap=caps.per_key if caps else None,
        total_cap=caps.total if caps else None,
        metrics=metrics,
    )
    result = _with_consumers(result, outcome.service)
    owner = scenario.tenant_of()
    if owner is not None and outcome.steps is None and not is_one_grain(owner):
        _with_tenants(result.metrics, outcome, owner, waiting)
    if treatment.lineup is not None:
        result.lineup = treatment.lineup.form
    steps = outcome.steps
    if steps is not None:
        result.metrics.steps = step_figures(
            dequeues, steps.victims, steps.contention, steps.drain_step, steps.calls
        )
        result.metrics.key_serves = steps.key_serves
        if steps.floor is not None:
            result.metrics.vtime_floor_final = steps.floor
    return result


def _with_tenants(
    metrics: MetricsResult, outcome: Outcome, owner: dict[str, str], waiting: dict[str, int] | None
) -> None:
    """The run's figures at the tenant grain (ckviz/fairness_tenants.py), as the key grain's
    are taken: the same holds, cap and keys left waiting."""
    own = None
    tape = outcome.dequeues
    if outcome.per_key_cap is not None and len(tape) and tape.holds_known:
        own = OwnLimit(outcome.per_key_cap)
    windows = Windows()
    figures = tenant_figures(tape, owner, waiting or None, own, windows=windows)
    metrics.per_tenant = figures.rows
    if figures.most_underserved is not None:
        metrics.most_underserved_tenant = figures.most_underserved[0]
        metrics.most_underserved_tenant_attainment = figures.most_underserved[1]
        metrics.tenant_attainment_resamples = resampled_attainment(figures.service, windows)


def _with_consumers(result: RunResult, service: Sequence[ConsumerService]) -> RunResult:
    """Several consumers: their number and each one's service go into the run's entry (with
    one, nothing does, so a one-consumer file is what it was before consumers existed)."""
    if len(service) > 1:
        result.consumers = len(service)
        result.metrics.per_consumer = [_consumer_result(c) for c in service]
    return result


def _consumer_result(c: ConsumerService) -> ConsumerResult:
    """One consumer's service; in a mixed rollout also its discipline and its other calls."""
    result = ConsumerResult(
        consumer=c.name, dequeued=c.dequeued, calls=c.calls, empty_calls=c.empty_calls
    )
    if c.discipline is not None:
        result.discipline, result.enqueued = c.discipline, c.enqueued
        result.acked, result.nacked, result.dead_lettered = c.acked, c.nacked, c.dead_lettered
    return result


def cell_label(cell: Cell) -> str:
    return f"{cell.scenario.name}/{cell.treatment.name}/{cell.seed}"
