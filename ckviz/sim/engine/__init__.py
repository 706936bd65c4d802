"""The engine, whichever clock drives it: the books, the invariant checks, the history, the
serve plan at the discipline's door, the run lifecycle and the one snapshot builder.

Above sim/, only this surface is imported: a run as `Engine` and `Outcome` (with a step run's
`StepOutcome`), a key's lifecycle tallies, the app's trend recorder, how long a state listing
may be, the garbage collector's setting for a run's hot loop, and a run's dequeues as the
figures read them (its tape, a key's waits counted) and as --events hears them.
"""

from ckviz.sim.engine.collector import YOUNG_THRESHOLD, roomy_young_generation
from ckviz.sim.engine.dequeues import Dequeues, WaitCounts, as_dequeues
from ckviz.sim.engine.history import TrendRecorder
from ckviz.sim.engine.invariants import LISTING_LIMIT
from ckviz.sim.engine.ledger import DequeueSink
from ckviz.sim.engine.lifecycle import KeyLife
from ckviz.sim.engine.run import Engine, Outcome, StepOutcome

__all__ = [
    "LISTING_LIMIT",
    "YOUNG_THRESHOLD",
    "DequeueSink",
    "Dequeues",
    "Engine",
    "KeyLife",
    "Outcome",
    "StepOutcome",
    "TrendRecorder",
    "WaitCounts",
    "as_dequeues",
    "roomy_young_generation",
]
