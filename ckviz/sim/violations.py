"""What a broken invariant reports: its name, the instant and the keys. docs/TRUST.md lists them."""

from __future__ import annotations

from collections.abc import Iterable

from ckviz.errors import InvariantViolation

ONE_PLACE = "one-place"  # every run queued, held, acked or not yet arrived, exactly once
DEQUEUED_ONCE = "dequeued-once"
HEAD_FIRST = "head-first"  # a key's runs leave in Redis order: (timestamp, run id)
PER_KEY_LIMIT = "per-key-limit"
ENV_LIMIT = "env-limit"
TOTAL_CAP = "total-cap"
CK_INDEX = "ck-index"  # ckIndex holds exactly the non-empty CK queues
MASTER_QUEUE = "master-queue"  # the master member is there exactly when ckIndex is non-empty
# after an enqueue or ack a key's entry is at its CK queue's head (or gone), as a rescoring
# discipline's trip projected it (sim/projection.py)
INDEX_AT_HEAD = "ck-index-head"
# virtual time (the step harness and the ms driver with a vtime discipline)
FLOOR_MONOTONE = "vtime-floor-monotone"  # the floor never decreases
TAG_MONOTONE = "vtime-tag-monotone"  # a tag never decreases while its key stays registered
TAGS_KNOWN = "vtime-tags-known"  # ckVtime holds only CK queues of this base queue, enqueued
IDLE_BELOW_TAG = "vtime-idle-below-tag"  # HEAD: a key live and parked is at or above its park
INVARIANTS = (
    ONE_PLACE,
    DEQUEUED_ONCE,
    HEAD_FIRST,
    PER_KEY_LIMIT,
    ENV_LIMIT,
    TOTAL_CAP,
    CK_INDEX,
    MASTER_QUEUE,
    INDEX_AT_HEAD,
)


class BrokenInvariant(InvariantViolation):
    """An invariant failed: which one, at which instant, for which keys."""

    def __init__(self, invariant: str, t: int, keys: Iterable[str], detail: str) -> None:
        self.invariant = invariant
        self.t = t
        self.keys = tuple(keys)
        named = f" (keys: {', '.join(repr(k) for k in self.keys)})" if self.keys else ""
        super().__init__(f"invariant {invariant} broken at t={t} ms{named}: {detail}")
