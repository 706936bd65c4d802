"""Whether a workload can finish at all within the driver's logical time limit.

A lower bound on the instant of the last dequeue: with at most `slots` runs held at once, the
runs finished by then occupied slots for their whole hold, and at most `slots` runs are still
held at that instant, so it comes no earlier than (total hold - the `slots` longest holds) /
slots. The same holds per key under a per-key limit, and no run is dequeued before it arrives.
A workload whose bound passes the limit is rejected up front instead of run to a certain
"incomplete"; one that passes may still end incomplete, and is then reported as such.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ckviz.errors import UsageError
from ckviz.inputs.workload import generate
from ckviz.model.matrix import Treatment
from ckviz.model.queue import PlannedRun
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario, on_steps
from ckviz.sim.collector import roomy_young_generation


@dataclass(frozen=True, slots=True)
class FinishBound:
    """The earliest instant the last run can be dequeued, and what forces it."""

    ms: int
    reason: str


def earliest_finish(
    workload: Sequence[PlannedRun],
    env_limit: int,
    per_key_cap: int | None = None,
    total_cap: int | None = None,
) -> FinishBound:
    """A lower bound on the last dequeue time of `workload` under these limits."""
    best = FinishBound(0, "nothing to run")
    if not workload:
        return best
    last = max(workload, key=lambda r: r.arrival_ms)
    best = FinishBound(last.arrival_ms, f"run {last.run_id} arrives at {last.arrival_ms} ms")
    slots = min(env_limit, total_cap or env_limit)
    busy = _busy_bound([r.hold_ms for r in workload], slots)
    if busy > best.ms:
        total = sum(r.hold_ms for r in workload)
        best = FinishBound(busy, f"{total} ms of holds share {slots} slot(s)")
    if per_key_cap is not None:
        by_key: dict[str, list[int]] = defaultdict(list)
        for run in workload:
            by_key[run.key].append(run.hold_ms)
        per_key = min(per_key_cap, env_limit)
        for key, holds in by_key.items():
            bound = _busy_bound(holds, per_key)
            if bound > best.ms:
                reason = f"key '{key}' holds {sum(holds)} ms with a per-key cap of {per_key}"
                best = FinishBound(bound, reason)
    return best


def _busy_bound(holds: list[int], slots: int) -> int:
    if len(holds) <= slots:
        return 0
    longest = sum(sorted(holds, reverse=True)[:slots])
    return math.ceil((sum(holds) - longest) / slots)


def reject_unfinishable(
    scenario: Scenario | StepScenario,
    seeds: Sequence[str],
    treatments: Sequence[Treatment],
    limit_ms: int | None = None,
) -> None:
    """UsageError naming the first (seed, treatment) whose workload cannot finish in time
    (by `limit_ms`, else the scenario's clock limit). The step clock's runs always finish."""
    if on_steps(scenario):
        return
    limit_ms = limit_ms or scenario.clock_limit
    for seed in seeds:
        with roomy_young_generation():  # 202,000 runs at 100,000 keys, all kept
            workload = generate(scenario, seed)
        for t in treatments:
            caps = t.caps_on(scenario.caps)
            bound = earliest_finish(workload, scenario.env_limit, caps.per_key, caps.total)
            if bound.ms > limit_ms:
                raise UsageError(
                    f"scenario '{scenario.name}' ({t.name}, seed {seed}) cannot finish within "
                    f"the {limit_ms} ms logical limit: {bound.reason}, so its last run leaves "
                    f"at {bound.ms} ms at the earliest; use fewer runs, shorter holds, a "
                    "higher env_limit or a later clock_limit_ms"
                )
