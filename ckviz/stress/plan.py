"""What a stress run produces, from a scenario file of either kind."""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.inputs.workload import generate
from ckviz.model.queue import PlannedRun
from ckviz.model.scenario import Scenario
from ckviz.model.steps import FRESH_PREFIX, StepScenario, on_steps

MS_SEED = "seed-a"  # a millisecond scenario's runs are those of this seed


@dataclass(frozen=True, slots=True)
class Arrival:
    """A run and its message timestamp (ms after t0)."""

    run: PlannedRun
    offset_ms: int


@dataclass(frozen=True, slots=True)
class StressPlan:
    """Runs declared up front, plus the step harness's arrivals between calls."""

    scenario: str
    env_limit: int
    per_key_limit: int  # what the dequeue applies per CK queue: min(per-queue limit, env limit)
    queue_limit: int | None  # the per-queue limit written to B:concurrency, if any
    max_count: int
    hold_calls: int  # a consumer acks a run after this many of its own later calls
    declared: tuple[Arrival, ...]
    fresh_per_call: int = 0
    fresh_start: int = 0
    fresh_batches: int = 0  # at most this many batches of fresh keys
    refeed: frozenset[str] = frozenset()
    refeed_start: int = 0
    refeed_budget: int = 0  # refeeds at most, over all consumers


def plan_for(scenario: Scenario | StepScenario) -> StressPlan:
    if on_steps(scenario):
        return _step_plan(scenario)
    per_key = scenario.caps.per_key
    runs = generate(scenario, MS_SEED)
    return StressPlan(
        scenario=scenario.name,
        env_limit=scenario.env_limit,
        per_key_limit=min(per_key or scenario.env_limit, scenario.env_limit),
        queue_limit=per_key,
        max_count=1,
        hold_calls=0,
        declared=tuple(Arrival(r, r.arrival_ms) for r in runs),
    )


def _step_plan(scenario: StepScenario) -> StressPlan:
    declared = [
        Arrival(PlannedRun(key, f"{key}-{i}", 0, 0), spec.timestamp(i, k))
        for spec in scenario.keys
        for k, key in enumerate(spec.names())
        for i in range(spec.runs)
    ]
    h, a = scenario.harness, scenario.arrivals
    return StressPlan(
        scenario=scenario.name,
        env_limit=scenario.env_limit,
        per_key_limit=scenario.env_limit,
        queue_limit=None,
        max_count=h.max_count,
        hold_calls=h.hold_steps,
        declared=tuple(declared),
        fresh_per_call=a.fresh_per_call,
        fresh_start=a.fresh_start,
        fresh_batches=h.max_steps if a.fresh_per_call else 0,
        refeed=frozenset(a.refeed),
        refeed_start=a.refeed_start,
        refeed_budget=h.max_steps * h.max_count if a.refeed else 0,
    )


def fresh_key(n: int) -> str:
    return f"{FRESH_PREFIX}{n}"
