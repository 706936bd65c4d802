"""The clock factory: the engine a scenario's clock needs, opened in its own namespace.

A scenario's `clock` says which clock it needs; this opens it (the logical-
millisecond `Driver` or the step clock's `StepRunner`) with its cell's keys swept on close,
and says which disciplines run on each clock.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeGuard

import redis

from ckviz.disciplines.registry import FACTORIES, runs_in_mix
from ckviz.model.clock import Clock
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario
from ckviz.sim.cell.session import open_cell, open_step_cell
from ckviz.sim.engine.ledger import DequeueSink
from ckviz.sim.engine.run import Engine
from ckviz.sim.millisecond_clock.driver import Driver
from ckviz.sim.step_clock.runner import STEP_DISCIPLINES


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """How a cell's engine runs, beyond its scenario, seed and treatment."""

    max_count: int = 1  # runs per dequeue call on the millisecond clock
    step_max_count: int | None = None  # on the step clock: --max-count, else the harness's
    check_invariants: bool = True
    trace: bool = False  # a dequeue in Redis reports what it looked at (the app asks)
    consumers: int | None = None  # None: the treatment's, else the scenario's
    history: bool = False  # the run's past in time buckets (the app's pictures)
    keep_events: bool = True  # the dequeues as events too (a cell's figures need only the tape)
    on_dequeue: DequeueSink | None = None  # told each dequeue as it happens (--events)


def disciplines_on(clock: Clock) -> tuple[str, ...]:
    """The disciplines a clock runs."""
    return STEP_DISCIPLINES if clock.in_redis_only else tuple(FACTORIES)


def ranks_every_attempt(engine: Engine) -> TypeGuard[Driver]:
    """Whether each serve attempt of the engine's instant ranks and rewrites every key of
    ckIndex (a rescoring discipline on the millisecond clock): the app steps such an instant
    attempt by attempt, so that esc is heard between them."""
    return isinstance(engine, Driver) and engine.plan.rescores


def runs_on(discipline: str, scenario: Scenario | StepScenario) -> bool:
    """Whether the scenario's clock has this discipline."""
    return discipline in disciplines_on(scenario.clock)


def treatment_runs_on(treatment: Treatment, scenario: Scenario | StepScenario) -> bool:
    """Whether the scenario's clock has every discipline the treatment's consumers run there
    (on a scenario whose consumers are a mix, Treatment.facing: each must share a queue)."""
    facing = treatment.facing(scenario.mix)
    mixed = facing.lineup is not None
    names = facing.disciplines
    return all(runs_on(n, scenario) and (runs_in_mix(n) or not mixed) for n in names)


@contextlib.contextmanager
def open_engine(
    client: redis.Redis,
    scenario: Scenario | StepScenario,
    seed: str,
    treatment: Treatment,
    prefix: str,
    options: EngineOptions = EngineOptions(),
) -> Iterator[Engine]:
    """A ready engine on the scenario's clock whose keys all start with `prefix`; they are
    deleted when it closes."""
    o = options
    treatment = treatment.facing(scenario.mix)  # a scenario's mix (model/matrix.py)
    cell: contextlib.AbstractContextManager[Engine]
    if isinstance(scenario, StepScenario):  # the step clock
        cell = open_step_cell(
            client,
            scenario,
            treatment,
            prefix,
            o.step_max_count,
            o.check_invariants,
            seed=seed,
            consumers=o.consumers,
            history=o.history,
        )
    else:
        cell = open_cell(
            client,
            scenario,
            seed,
            treatment,
            prefix,
            o.max_count,
            o.check_invariants,
            o.trace,
            o.consumers,
            o.history,
        )
    with cell as engine:
        engine.ledger.keep_events = o.keep_events
        engine.ledger.on_dequeue = o.on_dequeue
        yield engine
