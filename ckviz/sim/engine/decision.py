"""The last dequeue call's decision, for the snapshot (the app's "why"): its best-ranked
candidates, each with what its discipline ranked it by as it decided, and what the dequeue
made of it.

A rescoring discipline's ranks are its own, kept as it decided (serving.py); the Lua's own
order ranks by ckIndex's score (the served runs' scores as the call read them, the others'
as they stand: the call left them so); a discipline in Redis reports its candidates itself.
What the dequeue made of a candidate it did not serve follows dequeue.lua's walk over the
call's inputs: the scan window (budget x SCAN_FACTOR entries), the batch (budget runs), the
per-key limit (runs held before the call).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ckviz.model.arithmetic import SCAN_FACTOR, dequeue_budget, queue_limit
from ckviz.model.decision import TOP, Candidate, Decision, Rank
from ckviz.model.queue import IndexEntry
from ckviz.sim.engine.serving import Decided

HEAD = "head at"  # a ckIndex score, in the clock's units from the run's start


def walked(
    ranked: Sequence[tuple[str, Rank]],
    served: Sequence[str],
    held_before: Callable[[str], int],
    per_key: int,
    budget: int,
) -> Decision:
    """`ranked` (best first) as dequeue.lua walked it, given what it took (`served`)."""
    window, taken, left = budget * SCAN_FACTOR, 0, Counter(served)
    candidates = []
    for place, (key, rank) in enumerate(ranked):
        if left[key] > 0:
            fate, taken, left[key] = "served", taken + 1, left[key] - 1
        elif place >= window:
            fate = "outside-window"
        elif taken >= budget:
            fate = "batch-full"
        elif held_before(key) >= per_key:
            fate = "limit"
        else:
            fate = "not-ready"
        candidates.append(Candidate(key, rank, fate))
    return Decision(tuple(candidates))


def age_ranked(
    index: Sequence[IndexEntry], served: Sequence[tuple[str, float]], base: int
) -> list[tuple[str, Rank]]:
    """The Lua's own order before the call: ckIndex as it stands, with the served keys at the
    scores the call read (a served key's entry moved to its next head, or left)."""
    scores = {e.key: e.score for e in index[: TOP + len(served)]}
    scores.update(served)
    ranked = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))[:TOP]
    return [(key, ((HEAD, score - base),)) for key, score in ranked]


def call_decision(
    decided: Decided | None,
    index: Sequence[IndexEntry],
    base: int,
    held: tuple[Callable[[str], int], int],
    limits: tuple[int, int, int | None, int | None],
) -> Decision | None:
    """The decision of the call `decided` recorded: `held` is (runs held per key, in all) now,
    `limits` the env limit, max count, per-key cap and total cap."""
    if decided is None or decided.served is None:
        return None  # no call yet, or its reply is not in
    served = [key for key, _ in decided.served]
    took = Counter(served)
    held_of, held_now = held
    env_limit, max_count, per_key_cap, total_cap = limits
    budget = dequeue_budget(max_count, env_limit, held_now - len(served), total_cap)
    ranked = decided.ranked or age_ranked(index, decided.served, base)
    return walked(
        ranked,
        served,
        lambda key: held_of(key) - took[key],
        queue_limit(per_key_cap, env_limit),
        budget,
    )


def latest(plans: Sequence[object]) -> Decided | None:
    """The decision of the last call any consumer's plan got a reply to."""
    decided = [d for plan in plans if (d := getattr(plan, "decided", None)) is not None]
    return max(decided, key=lambda d: d.serial, default=None)
