"""Whether a workload can finish at all within the driver's logical time limit.

A lower bound on the instant of the last dequeue: with at most `slots` runs held at once, the
runs finished by then occupied slots for their whole hold, and at most `slots` runs are still
held at that instant, so it comes no earlier than (total hold - the `slots` longest holds) /
slots. The same holds per key under a per-key limit, and no run is dequeued before it arrives.
A workload whose bound passes the limit is rejected up front instead of run to a certain
"incomplete"; one that passes may still end incomplete, and is then reported as such.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ckviz.errors import UsageError
from ckviz.inputs.workload import each_run
from ckviz.model.matrix import Treatment
from ckviz.model.queue import PlannedRun
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario, on_steps
from ckviz.sim.engine.collector import roomy_young_generation


@dataclass(frozen=True, slots=True)
class FinishBound:
    """The earliest instant the last run can be dequeued, and what forces it."""

    ms: int
    reason: str


class _Holds:
    """Holds seen one at a time: their sum, their count and the `slots` longest (a min-heap),
    all a bound on when the last of them starts needs."""

    __slots__ = ("count", "longest", "slots", "total")

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.total = 0
        self.count = 0
        self.longest: list[int] = []

    def add(self, hold: int) -> None:
        self.total += hold
        self.count += 1
        if len(self.longest) < self.slots:
            heapq.heappush(self.longest, hold)
        elif hold > self.longest[0]:
            heapq.heapreplace(self.longest, hold)

    def busy_bound(self) -> int:
        """When the last of these holds can start at the earliest with `slots` at once:
        (total - the `slots` longest) / slots, rounded up (0: they all fit at once)."""
        if self.count <= self.slots:
            return 0
        return math.ceil((self.total - sum(self.longest)) / self.slots)


def earliest_finish(
    workload: Iterable[PlannedRun],
    env_limit: int,
    per_key_cap: int | None = None,
    total_cap: int | None = None,
) -> FinishBound:
    """A lower bound on the last dequeue time of `workload` under these limits, in one pass
    (a trace's runs stream by: only the longest holds are kept, per key under a cap)."""
    last: PlannedRun | None = None
    slots = min(env_limit, total_cap or env_limit)
    every = _Holds(slots)
    per_key = None if per_key_cap is None else min(per_key_cap, env_limit)
    by_key: dict[str, _Holds] = {}
    for run in workload:
        if last is None or run.arrival_ms > last.arrival_ms:
            last = run  # the first of the latest arrivals
        every.add(run.hold_ms)
        if per_key is not None:
            held = by_key.get(run.key)
            if held is None:
                held = by_key[run.key] = _Holds(per_key)
            held.add(run.hold_ms)
    if last is None:
        return FinishBound(0, "nothing to run")
    best = FinishBound(last.arrival_ms, f"run {last.run_id} arrives at {last.arrival_ms} ms")
    busy = every.busy_bound()
    if busy > best.ms:
        best = FinishBound(busy, f"{every.total} ms of holds share {slots} slot(s)")
    for key, held in by_key.items():
        bound = held.busy_bound()
        if bound > best.ms:
            reason = f"key '{key}' holds {held.total} ms with a per-key cap of {per_key}"
            best = FinishBound(bound, reason)
    return best


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
    if scenario.replay is not None:  # a trace's runs are the same whatever the seed: one pass
        seeds = seeds[:1]
    for seed in seeds:
        bounds: dict[tuple[int | None, int | None], FinishBound] = {}  # per caps: one pass
        for t in treatments:
            caps = t.caps_on(scenario.caps)
            bound = bounds.get((caps.per_key, caps.total))
            if bound is None:
                with roomy_young_generation():  # 202,000 runs at 100,000 keys, all kept
                    workload = each_run(scenario, seed)  # a trace's: read as they come
                    bound = earliest_finish(workload, scenario.env_limit, caps.per_key, caps.total)
                bounds[(caps.per_key, caps.total)] = bound
            if bound.ms > limit_ms:
                raise UsageError(
                    f"scenario '{scenario.name}' ({t.name}, seed {seed}) cannot finish within "
                    f"the {limit_ms} ms logical limit: {bound.reason}, so its last run leaves "
                    f"at {bound.ms} ms at the earliest; use fewer runs, shorter holds, a "
                    "higher env_limit or a later clock_limit_ms"
                )
