"""The reference clocks as numbers: where a message's timestamp starts and what "now" is.

Both clocks share them: the logical-millisecond clock stamps a run `SCORE_BASE + arrival_ms`,
the step clock `T0 + offset`. `WALL_NOW` stands in for the reference's real clock (the
dequeue's and the rescorer's `now`): above every timestamp, and below 1e13 so Lua's 14-digit
number formatting stays exact (SPEC 9a).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SCORE_BASE = 1_700_000_000_000
WALL_NOW = SCORE_BASE + 1_000_000_000
T0 = SCORE_BASE  # the step harness's t0: far in the past of WALL_NOW, as the reference's

Unit = Literal["ms", "step"]  # what a clock counts: logical milliseconds, or dequeue calls


@dataclass(frozen=True, slots=True)
class Clock:
    """Which clock drives a scenario (a scenario's `clock`), and what that means for the code
    above the engine: asked of the clock, never by telling the scenario kinds apart."""

    name: Literal["ms", "steps"]
    unit: Unit
    seeded: bool  # its workload is drawn from the seed (a step scenario's is fixed: one seed)
    per_call: int | None  # runs one key can take per dequeue call (None: no such bound)
    kind: str  # "a step scenario", in words
    in_redis_only: bool  # it runs only the disciplines whose order is in Redis (sim/clocks.py)
    capped: bool  # the driver's per-key and total caps, and a clock limit, apply
    ruled: bool  # its scenarios' [[expect]] rules are checked, and whether a run can finish


MILLISECONDS = Clock(
    "ms", "ms", True, None, "a millisecond", in_redis_only=False, capped=True, ruled=True
)
STEPS = Clock("steps", "step", False, 1, "a step", in_redis_only=True, capped=False, ruled=False)
