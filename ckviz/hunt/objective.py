"""The hunt's objective: how badly a discipline treats the worst-served key of a workload.

The worst-served key is the one with the lowest fair-share attainment (ckviz/fairness.py,
docs/fairness.md): the dequeues it got over the dequeues it was owed, each instant's owed
max-min fairly by weight to the keys that could take a run then. It is the results' own
figure (metrics.outcome_metrics), which the report's verdicts and the app's status line read
too; in the step harness an instant is a call, and a key can take one run per call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import redis

from ckviz.fairness import OwnLimit, key_service
from ckviz.fairness_judged import attainments
from ckviz.hunt.space import HuntCase
from ckviz.metrics import outcome_metrics
from ckviz.model.matrix import Treatment
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.clocks import EngineOptions, open_engine


@dataclass(frozen=True, slots=True)
class Verdict:
    """A discipline's treatment of one workload."""

    discipline: str
    worst_share: float  # fair-share attainment of the most under-served key (1 = fair)
    worst_key: str | None
    worst_key_mean_wait_ms: float | None
    contention_worst: float  # the results' contention_worst_share_over_weight, for comparison

    @property
    def starvation(self) -> float:
        """What the search maximises: 0 for a fair run, 1 for a key never served."""
        return 1.0 - self.worst_share


def evaluate(
    client: redis.Redis, prefix: str, case: HuntCase, discipline: str, check: bool = True
) -> Verdict:
    """Run `case` under `discipline` on the server, in the namespace `prefix`, to its end."""
    treatment = Treatment(discipline=discipline)
    options = EngineOptions(check_invariants=check)
    with open_engine(client, case.scenario, case.seed, treatment, prefix, options) as engine:
        engine.run()
        outcome, waiting = engine.outcome(), engine.waiting_since()
    m = outcome_metrics(outcome, waiting)  # the results' figures, as --headless weighs them
    key, attainment = m.most_underserved_key, m.most_underserved_attainment
    if key is None or attainment is None:
        return Verdict(discipline, 1.0, None, None, m.contention_worst_share_over_weight)
    wait = next((row.mean_wait for row in m.per_key if row.key == key and row.dequeued), None)
    return Verdict(discipline, attainment, key, wait, m.contention_worst_share_over_weight)


def owed_ratios(
    events: Sequence[DequeueEvent],
    weights: Mapping[str, float],
    waiting_since: Mapping[str, int] | None = None,
    own_limit: OwnLimit | None = None,
    per_call: int | None = None,
) -> dict[str, float]:
    """Per judged key: its fair-share attainment (ckviz/fairness.py, docs/fairness.md)."""
    return attainments(key_service(events, weights, waiting_since, own_limit, per_call))
