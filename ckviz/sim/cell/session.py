"""Opening one cell (scenario, seed, discipline) on either clock, in its own key namespace:
its consumers' connections opened, its keys swept when it closes (one way for both)."""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator

import redis

from ckviz.defaults import ROOT_PREFIX
from ckviz.disciplines.base import Discipline
from ckviz.disciplines.registry import make_discipline, tuning_for
from ckviz.disciplines.vtime.door import STATE_KEYS as VTIME_STATE_KEYS
from ckviz.inputs.trace_stream import stream
from ckviz.inputs.workload import generate
from ckviz.model.clock import SCORE_BASE, WALL_NOW
from ckviz.model.matrix import Treatment
from ckviz.model.queue import PlannedRun, RunStream
from ckviz.model.scenario import Scenario, VtimeStart
from ckviz.model.steps import StepScenario
from ckviz.sim.engine.collector import roomy_young_generation
from ckviz.sim.engine.lifecycle import Lifecycle
from ckviz.sim.millisecond_clock.config import DriverConfig
from ckviz.sim.millisecond_clock.driver import Driver
from ckviz.sim.step_clock.runner import StepRunner
from ckviz.store.keys import ck_member
from ckviz.store.runqueue import RunQueue, share_scripts


def new_namespace(root: str = ROOT_PREFIX) -> str:
    """A fresh per-session prefix, `ckviz:<random>:`; cells add their own suffix."""
    return f"{root}:{secrets.token_hex(6)}:"


@contextlib.contextmanager
def open_cell(
    client: redis.Redis,
    scenario: Scenario,
    seed: str,
    treatment: Treatment,
    prefix: str,
    max_count: int = 1,
    check_invariants: bool = True,
    trace: bool = False,
    consumers: int | None = None,
    history: bool = False,
) -> Iterator[Driver]:
    """A ready driver whose keys all start with `prefix`; they are deleted when it closes.
    `trace`: a discipline in Redis reports what its dequeue looked at (the app asks for it).
    `consumers`: how many take turns (default: the treatment's, else the scenario's), each
    on its own connection from `client` (in a cluster, the cell's primary). `history`: the
    driver keeps the run's past in time buckets (the app's pictures)."""
    caps = treatment.caps_on(scenario.caps)
    weights = scenario.weights()
    made: dict[str, Discipline] = {}
    lanes = []
    count = consumers or treatment.consumers_on(scenario.consumer_count)
    for name in treatment.per_consumer(count):  # a mix's each its own (model/lineup.py)
        tuning = tuning_for(name, scenario, treatment, trace)
        discipline = made.get(name) or make_discipline(name, weights, tuning)
        if not discipline.door.rescores:  # its state is in Redis: one object for all
            made[name] = discipline
        # a client-side discipline's state is each consumer's own (sim/engine/consumers.py)
        queue = RunQueue(client, prefix, scenario.env_limit, caps.per_key, discipline.door)
        lanes.append((discipline, queue))
    lifecycle = None
    if scenario.has_lifecycle:
        lifecycle = Lifecycle(scenario.retry, scenario.ttl, seed, SCORE_BASE, list(weights))
    config = DriverConfig(
        scenario=scenario.name,
        seed=seed,
        env_limit=scenario.env_limit,
        weights=scenario.weights(),
        max_count=max_count,
        per_key_cap=caps.per_key,
        total_cap=caps.total,
        max_logical_ms=scenario.clock_limit,
        check_invariants=check_invariants,
        lineup=treatment.lineup,
    )
    (discipline, queue), *more = lanes
    with _namespace(queue, [other for _, other in more]):
        workload: list[PlannedRun] | RunStream
        held: list[PlannedRun] = []
        recorded = scenario.replay  # the app (history) keeps every run: its fairness reads them
        if recorded is not None and not history and not recorded.held_at_start:
            workload = stream(recorded)  # read as the clock goes: a day never held whole
        else:
            workload = workload_of(scenario, seed)
        if recorded is not None and recorded.held_at_start and isinstance(workload, list):
            held = [run for run in workload if run.life.held]  # a forked start's (a few)
            workload = [run for run in workload if not run.life.held]
        driver = Driver(config, workload, discipline, queue, more, history, lifecycle, held)
        if scenario.vtime_start is not None:
            _start_vtime(queue, scenario.vtime_start)
        yield driver


def _start_vtime(queue: RunQueue, start: VtimeStart) -> None:
    """A forked start's vtime state, for a discipline whose door keeps it (vtime's `ckVtime`,
    `ckVtimeFloor`, `ckVtimeIdle`); another discipline has no use for it."""
    names = set(queue.door.state_keys)
    tags, floor, idle = VTIME_STATE_KEYS
    trip = queue.trip()
    if tags in names:
        trip.start_zset(tags, {ck_member(k): tag for k, tag in start.tags.items()})
    if idle in names:
        trip.start_zset(idle, {ck_member(k): tag for k, tag in start.idle.items()})
    if floor in names and start.floor is not None:
        trip.start_string(floor, start.floor)
    if len(trip):
        trip.send()


# A matrix runs each (scenario, seed) under every discipline (eight in the default), and the
# draw is the same each time: ~1 ms a cell of the default matrix's, 4% of its client time. The
# last few are kept (their runs are frozen, so cells share them); one past KEPT_RUNS, or a
# trace's (read from its file), is drawn anew every time.
WORKLOADS_KEPT = 16
KEPT_RUNS = 100_000
_kept: OrderedDict[tuple[str, str], tuple[PlannedRun, ...]] = OrderedDict()
_kept_lock = threading.Lock()


def workload_of(scenario: Scenario, seed: str) -> list[PlannedRun]:
    """`generate(scenario, seed)`, drawn once for the cells of the same scenario and seed."""
    if scenario.replay is not None:
        return _drawn(scenario, seed)
    key = (scenario.model_dump_json(), seed)
    with _kept_lock:
        kept = _kept.get(key)
        if kept is not None:
            _kept.move_to_end(key)
            return list(kept)
    runs = _drawn(scenario, seed)
    if len(runs) <= KEPT_RUNS:
        with _kept_lock:
            _kept[key] = tuple(runs)
            if len(_kept) > WORKLOADS_KEPT:
                _kept.popitem(last=False)
    return runs


def _drawn(scenario: Scenario, seed: str) -> list[PlannedRun]:
    with roomy_young_generation():  # 202,000 runs at 100,000 keys, all kept
        return generate(scenario, seed)


@contextlib.contextmanager
def open_step_cell(
    client: redis.Redis,
    scenario: StepScenario,
    treatment: Treatment,
    prefix: str,
    max_count: int | None = None,
    check_invariants: bool = True,
    seed: str = "",
    consumers: int | None = None,
    history: bool = False,
) -> Iterator[StepRunner]:
    """A ready step runner whose keys all start with `prefix`; deleted when it closes.
    `consumers` (default: the treatment's, else the scenario's) call in turn each step, in an
    order drawn from `seed` and the step. `history`: the run's past in time buckets (steps)."""
    # the step harness reads what every call looked at (its checks and the app use it)
    count = consumers or treatment.consumers_on(scenario.consumer_count)
    doors = {
        name: make_discipline(name, tuning=tuning_for(name, scenario, treatment, True)).door
        for name in treatment.disciplines
    }
    queue, *more = [
        RunQueue(client, prefix, scenario.env_limit, door=doors[name])
        for name in treatment.per_consumer(count)
    ]
    lifecycle = None
    if scenario.has_lifecycle:  # a step stands for step_ms past every fixed timestamp
        keys = scenario.key_names()
        unit = scenario.harness.ms_per_step
        lifecycle = Lifecycle(scenario.retry, scenario.ttl, seed, WALL_NOW, keys, unit)
    with _namespace(queue, more):
        yield StepRunner(
            scenario,
            treatment.discipline,
            queue,
            max_count,
            check_invariants,
            more_queues=more,
            seed=seed,
            history=history,
            lifecycle=lifecycle,
            lineup=treatment.lineup,
        )


@contextlib.contextmanager
def _namespace(queue: RunQueue, more: list[RunQueue]) -> Iterator[None]:
    """c1's queue opened (the limits written, every consumer's scripts loaded), c2..cN
    connected; on the way out, every key under the cell's prefix deleted (if the server still
    answers) and every connection closed."""
    share_scripts([queue, *more])
    try:
        queue.open()
        for other in more:
            other.connect()
        yield
    finally:
        with contextlib.suppress(redis.RedisError, OSError):
            queue.delete_namespace()
        queue.close()
        for other in more:
            other.close()
