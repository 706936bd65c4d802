"""Every invariant ckviz checks, in one list: its name, its rule, and which harnesses check it.

A harness reports a broken one as `BrokenInvariant` (the name, where on its clock, the keys);
`ckviz stress` counts checks and violations per name instead of stopping. docs/TRUST.md says
how each is checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, cast

from ckviz.errors import InvariantViolation, cut_quoted
from ckviz.model.clock import Unit

# who checks: the logical-millisecond clock, the step clock, `ckviz stress`
Harness = Literal["ms", "steps", "stress"]

ONE_PLACE = "one-place"
DEQUEUED_ONCE = "dequeued-once"
SERVED_ALL = "served-all"
HEAD_FIRST = "head-first"
PER_KEY_LIMIT = "per-key-limit"
ENV_LIMIT = "env-limit"
TOTAL_CAP = "total-cap"
CK_INDEX = "ck-index"
MASTER_QUEUE = "master-queue"
LENGTH_COUNTER = "length-counter"
INDEX_AT_HEAD = "ck-index-head"
FLOOR_MONOTONE = "vtime-floor-monotone"
TAG_MONOTONE = "vtime-tag-monotone"
TAGS_KNOWN = "vtime-tags-known"
IDLE_BELOW_TAG = "vtime-idle-below-tag"
ENDS_EMPTY = "ends-empty"
EXPIRED_ONCE = "expired-once"


@dataclass(frozen=True, slots=True)
class Invariant:
    name: str
    rule: str
    checked_by: frozenset[Harness]


def _rule(name: str, rule: str, harnesses: str) -> Invariant:
    return Invariant(name, rule, frozenset(cast(list[Harness], harnesses.split())))


INVARIANTS: tuple[Invariant, ...] = (
    _rule(
        ONE_PLACE,
        "every run not yet arrived, queued, held, done, dead-lettered or expired, exactly once",
        "ms steps",
    ),
    _rule(DEQUEUED_ONCE, "no run served twice, none that was never enqueued", "ms steps stress"),
    _rule(SERVED_ALL, "every enqueued run was served by the end", "stress"),
    _rule(HEAD_FIRST, "a key's runs leave in Redis order: (timestamp, run id)", "ms steps"),
    _rule(PER_KEY_LIMIT, "no key holds more runs than its limit", "ms steps stress"),
    _rule(ENV_LIMIT, "the env holds no more runs than its limit", "ms steps stress"),
    _rule(TOTAL_CAP, "the env holds no more runs than the total cap", "ms"),
    _rule(CK_INDEX, "ckIndex holds exactly the non-empty CK queues", "ms steps"),
    _rule(
        MASTER_QUEUE,
        "the master member is there exactly when ckIndex is non-empty (a TTL sweep may leave it"
        " until a script fixes it)",
        "ms steps",
    ),
    _rule(
        LENGTH_COUNTER,
        "the base queue's lengthCounter counts the runs queued, as the reference's scripts keep it",
        "ms steps",
    ),
    # as a rescoring discipline's trip projected it (sim/millisecond_clock/projection.py)
    _rule(INDEX_AT_HEAD, "after an enqueue or ack a key's entry is at its head, or gone", "ms"),
    _rule(FLOOR_MONOTONE, "the vtime floor never decreases", "ms steps stress"),
    _rule(TAG_MONOTONE, "a tag never decreases while its key stays registered", "ms steps stress"),
    _rule(TAGS_KNOWN, "ckVtime holds only enqueued CK queues of this base queue", "ms steps"),
    _rule(IDLE_BELOW_TAG, "HEAD: a key live and parked is at or above its park", "ms steps"),
    _rule(ENDS_EMPTY, "nothing queued or held on the server at the end", "stress"),
    _rule(EXPIRED_ONCE, "no run expires twice (a dequeue's drop, then its sweep, is one)", "ms"),
)
NAMES: tuple[str, ...] = tuple(i.name for i in INVARIANTS)


def checked_by(harness: Harness) -> tuple[str, ...]:
    """The names one harness checks, in the list's order."""
    return tuple(i.name for i in INVARIANTS if harness in i.checked_by)


class BrokenInvariant(InvariantViolation):
    """An invariant failed: which one, where on the run's clock (an instant in ms or a step),
    for which keys."""

    def __init__(
        self, invariant: str, t: int, keys: Iterable[str], detail: str, unit: Unit = "ms"
    ) -> None:
        self.invariant = invariant
        self.t = t
        self.unit = unit
        self.keys = tuple(keys)
        named = f" (keys: {', '.join(repr(k) for k in self.keys)})" if self.keys else ""
        where = f"t={t} ms" if unit == "ms" else f"step {t}"
        message = f"invariant {invariant} broken at {where}{named}: {detail}"
        super().__init__(cut_quoted(message))  # a 10 KB key name must not fill the line

    @property
    def step(self) -> int:
        """Where on a step clock it broke (the step harness's word for `t`)."""
        return self.t
