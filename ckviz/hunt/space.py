"""The workloads a hunt searches: Hypothesis strategies that build valid scenarios.

Everything is drawn small on purpose: a workload that starves a key with 4 keys and 30 runs
is one a person can step through, and Hypothesis shrinks toward the simplest draw (fewer
keys, fewer runs, immediate arrivals, no caps), so what it reports reads as a story.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hypothesis import strategies as st

from ckviz.model.scenario import Caps, KeySpec, Scenario
from ckviz.model.steps import Arrivals, StepHarness, StepKeySpec, StepScenario

MAX_RUNS_PER_KEY = 40
MAX_HOLD_MEAN_MS = 200
MAX_START_MS = 2_000
Arrival = Literal["immediate", "poisson"]
ARRIVALS: tuple[Arrival, ...] = ("immediate", "poisson")


@dataclass(frozen=True, slots=True)
class HuntCase:
    """One candidate workload: a scenario and the workload seed its arrivals are drawn with."""

    scenario: Scenario | StepScenario
    seed: str  # the workload seed (the millisecond harness samples arrivals and holds with it)


@st.composite
def _key(draw: st.DrawFn, name: str) -> KeySpec:
    arrival: Arrival = draw(st.sampled_from(ARRIVALS))
    return KeySpec(
        name=name,
        runs=draw(st.integers(1, MAX_RUNS_PER_KEY)),
        arrival=arrival,
        rate_per_sec=float(draw(st.integers(1, 200))),
        hold_ms_mean=float(draw(st.integers(1, MAX_HOLD_MEAN_MS))),
        start_at_ms=draw(st.integers(0, MAX_START_MS)),
        weight=float(draw(st.integers(1, 3))),
    )


@st.composite
def _caps(draw: st.DrawFn, env_limit: int) -> Caps:
    per_key = draw(st.none() | st.integers(1, env_limit))
    total = draw(st.none() | st.integers(1, env_limit))
    return Caps(per_key=per_key, total=total)


def ms_workloads(max_keys: int, seed: str) -> st.SearchStrategy[HuntCase]:
    """Scenarios for the logical-millisecond harness: 2..max_keys keys, limits and caps."""

    @st.composite
    def build(draw: st.DrawFn) -> HuntCase:
        count = draw(st.integers(2, max_keys))
        keys = [draw(_key(f"k{i}")) for i in range(count)]
        env_limit = draw(st.integers(1, 6))
        caps = draw(_caps(env_limit))
        scenario = Scenario(name="found", env_limit=env_limit, caps=caps, keys=keys, light_key=None)
        return HuntCase(scenario, seed)

    return build()


MAX_STEPS = 200
MAX_STEP_RUNS_PER_KEY = 120
MAX_FRESH_PER_CALL = 4


def largest_workload(harness: str, max_keys: int) -> StepScenario | Scenario:
    """The most a hunt may hold on the server at once: every key at its most runs (and, in
    the step harness, a fresh key before every call)."""
    if harness == "steps":
        keys = [StepKeySpec(name=f"k{i}", runs=MAX_STEP_RUNS_PER_KEY) for i in range(max_keys)]
        return StepScenario(
            name="largest",
            harness=StepHarness(kind="steps", max_count=1, max_steps=MAX_STEPS),
            keys=keys,
            arrivals=Arrivals(fresh_per_call=MAX_FRESH_PER_CALL),
        )
    keys_ms = [KeySpec(name=f"k{i}", runs=MAX_RUNS_PER_KEY) for i in range(max_keys)]
    return Scenario(name="largest", keys=keys_ms)


@st.composite
def _step_key(draw: st.DrawFn, name: str) -> StepKeySpec:
    return StepKeySpec(
        name=name,
        runs=draw(st.integers(1, MAX_STEP_RUNS_PER_KEY)),
        start=draw(st.integers(0, 100)),
        spacing=draw(st.integers(0, 3)),
    )


def step_workloads(max_keys: int) -> st.SearchStrategy[HuntCase]:
    """Scenarios for the step harness (the micro-benchmark's and the starvation shapes'): keys
    enqueued up front, some refed one run each time a call serves them, optionally fresh keys
    minted before every call."""

    @st.composite
    def build(draw: st.DrawFn) -> HuntCase:
        count = draw(st.integers(2, max_keys))
        keys = [draw(_step_key(f"k{i}")) for i in range(count)]
        refeed = [k.name for k in keys if draw(st.booleans())]
        harness = StepHarness(
            kind="steps",
            max_count=draw(st.integers(1, 10)),
            hold_steps=draw(st.integers(0, 4)),
            max_steps=MAX_STEPS,
        )
        env_limit = draw(st.integers(1, 30))
        # Fresh keys arrive slower than calls can serve, leaving room for the declared keys:
        # under overload someone must starve, whatever the discipline, and that finds nothing.
        per_call = min(harness.max_count, env_limit // (harness.hold_steps + 1))
        fresh = draw(st.integers(0, max(0, min(MAX_FRESH_PER_CALL, per_call - 1))))
        arrivals = Arrivals(fresh_per_call=fresh, refeed=refeed)
        scenario = StepScenario(
            name="found",
            env_limit=env_limit,
            harness=harness,
            keys=keys,
            arrivals=arrivals,
        )
        return HuntCase(scenario, "seed-a")

    return build()
