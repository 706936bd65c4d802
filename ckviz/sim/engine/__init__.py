"""The engine, whichever clock drives it: the books, the invariant checks, the history, the
serve plan at the discipline's door, the run lifecycle and the one snapshot builder.

Above sim/, only this surface is imported: a run as `Engine` and `Outcome` (with a step run's
`StepOutcome`), a key's lifecycle tallies, the app's trend recorder, how long a state listing
may be, and the garbage collector's setting for a run's hot loop.
"""

from ckviz.sim.engine.collector import YOUNG_THRESHOLD, roomy_young_generation
from ckviz.sim.engine.history import TrendRecorder
from ckviz.sim.engine.invariants import LISTING_LIMIT
from ckviz.sim.engine.lifecycle import KeyLife
from ckviz.sim.engine.run import Engine, Outcome, StepOutcome

__all__ = [
    "LISTING_LIMIT",
    "YOUNG_THRESHOLD",
    "Engine",
    "KeyLife",
    "Outcome",
    "StepOutcome",
    "TrendRecorder",
    "roomy_young_generation",
]
