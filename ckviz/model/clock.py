"""The reference clocks as numbers: where a message's timestamp starts and what "now" is.

Both clocks share them: the logical-millisecond clock stamps a run `SCORE_BASE + arrival_ms`,
the step clock `T0 + offset`. `WALL_NOW` stands in for the reference's real clock (the
dequeue's and the rescorer's `now`): above every timestamp, and below 1e13 so Lua's 14-digit
number formatting stays exact (SPEC 9a).
"""

from __future__ import annotations

SCORE_BASE = 1_700_000_000_000
WALL_NOW = SCORE_BASE + 1_000_000_000
T0 = SCORE_BASE  # the step harness's t0: far in the past of WALL_NOW, as the reference's
MAX_LOGICAL_MS = 600_000  # the millisecond clock stops here (SPEC 5)
