"""The reference clocks as numbers: where a message's timestamp starts and what "now" is.

Both clocks share them: the logical-millisecond clock stamps a run `SCORE_BASE + arrival_ms`,
the step clock `T0 + offset`. `WALL_NOW` stands in for the reference's real clock (the
dequeue's and the rescorer's `now`): above every timestamp, and below 1e13 so Lua's 14-digit
number formatting stays exact (SPEC 9a).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from typing_extensions import TypeIs

from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario

SCORE_BASE = 1_700_000_000_000
WALL_NOW = SCORE_BASE + 1_000_000_000
T0 = SCORE_BASE  # the step harness's t0: far in the past of WALL_NOW, as the reference's

Unit = Literal["ms", "step"]  # what a clock counts: logical milliseconds, or dequeue calls


@dataclass(frozen=True, slots=True)
class Clock:
    """Which clock drives a scenario, and what that means for the code above the engine."""

    name: Literal["ms", "steps"]
    unit: Unit
    seeded: bool  # its workload is drawn from the seed (a step scenario's is fixed: one seed)
    per_call: int | None  # runs one key can take per dequeue call (None: no such bound)


MILLISECONDS = Clock("ms", "ms", seeded=True, per_call=None)
STEPS = Clock("steps", "step", seeded=False, per_call=1)


def clock_of(scenario: Scenario | StepScenario) -> Clock:
    """The one place a scenario's kind picks its clock (sim/clocks.py opens the engine)."""
    return STEPS if isinstance(scenario, StepScenario) else MILLISECONDS


def on_steps(scenario: Scenario | StepScenario) -> TypeIs[StepScenario]:
    """Whether the step clock drives `scenario` (for code that reads its step fields)."""
    return clock_of(scenario) is STEPS
