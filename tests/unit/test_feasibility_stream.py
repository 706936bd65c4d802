"""The finish bound in one pass over runs streaming by (sim/cell/feasibility.py): the same bound,
word for word, as sorting every hold of the workload held whole."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterator

import pytest

from ckviz.inputs import scenario_files, workload
from ckviz.model.matrix import Treatment
from ckviz.model.queue import PlannedRun
from ckviz.model.scenario import Scenario
from ckviz.sim.cell import feasibility
from ckviz.sim.cell.feasibility import FinishBound, earliest_finish, reject_unfinishable


def busy(holds: list[int], slots: int) -> int:
    if len(holds) <= slots:
        return 0
    return math.ceil((sum(holds) - sum(sorted(holds, reverse=True)[:slots])) / slots)


def whole(runs: list[PlannedRun], env: int, cap: int | None, total: int | None) -> FinishBound:
    """The bound as worked out with every run in memory."""
    last = max(runs, key=lambda r: r.arrival_ms)
    best = FinishBound(last.arrival_ms, f"run {last.run_id} arrives at {last.arrival_ms} ms")
    slots = min(env, total or env)
    if busy([r.hold_ms for r in runs], slots) > best.ms:
        held = sum(r.hold_ms for r in runs)
        best = FinishBound(
            busy([r.hold_ms for r in runs], slots), f"{held} ms of holds share {slots} slot(s)"
        )
    if cap is not None:
        by_key: dict[str, list[int]] = defaultdict(list)
        for run in runs:
            by_key[run.key].append(run.hold_ms)
        for key, holds in by_key.items():
            if busy(holds, min(cap, env)) > best.ms:
                reason = f"key '{key}' holds {sum(holds)} ms with a per-key cap of {min(cap, env)}"
                best = FinishBound(busy(holds, min(cap, env)), reason)
    return best


@pytest.mark.parametrize("seed", range(30))
def test_the_bound_over_a_stream_is_the_bound_over_the_whole_workload(seed: int) -> None:
    rng = random.Random(seed)
    runs = [
        PlannedRun(f"k{rng.randrange(6)}", f"r{i}", rng.randrange(50), rng.randrange(1, 400))
        for i in range(rng.randrange(1, 300))
    ]
    env, cap, total = rng.randrange(1, 20), rng.choice([None, 1, 2, 5]), rng.choice([None, 3])
    streamed = earliest_finish(iter(runs), env, cap, total)  # an iterator: read once
    assert streamed == whole(runs, env, cap, total)


def test_nothing_to_run() -> None:
    assert earliest_finish(iter([]), 4) == FinishBound(0, "nothing to run")


def test_a_trace_is_read_once_for_every_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trace replays the same runs under every seed: one pass bounds them all (a day's
    trace read once per seed cost as much as replaying it)."""
    read: list[str] = []

    def each_run(scenario: Scenario, seed: str) -> Iterator[PlannedRun]:
        read.append(seed)
        return workload.each_run(scenario, seed)

    monkeypatch.setattr(feasibility, "each_run", each_run)
    trace, sampled = scenario_files.load("incident_trace"), scenario_files.load("ck_trickle")
    baseline = [Treatment(discipline="baseline")]
    reject_unfinishable(trace, ["a", "b", "c"], baseline)
    assert read == ["a"]
    reject_unfinishable(sampled, ["a", "b"], baseline)  # a sampled workload: one per seed
    assert read == ["a", "a", "b"]
