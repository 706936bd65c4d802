"""Invariants of the step harness, checked after every call (docs/TRUST.md lists them).

The vtime state comes from `vtime_state.lua`, which rides at the end of the call's trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ckviz.errors import InvariantViolation
from ckviz.store.vtime import Version, VtimeState

DEQUEUED_ONCE = "dequeued-once"
PER_KEY_LIMIT = "per-key-limit"
ENV_LIMIT = "env-limit"
FLOOR_MONOTONE = "vtime-floor-monotone"  # the floor never decreases
TAG_MONOTONE = "vtime-tag-monotone"  # a tag never decreases while its key stays registered
TAGS_KNOWN = (
    "vtime-tags-known"  # ckVtime holds only CK queues of this base queue that were enqueued
)
IDLE_BELOW_TAG = (
    "vtime-idle-below-tag"  # HEAD: a key both live and parked is at or above its parked tag
)


class BrokenStepInvariant(InvariantViolation):
    """An invariant failed: which one, at which step, for which keys."""

    def __init__(self, invariant: str, step: int, keys: Iterable[str], detail: str) -> None:
        self.invariant = invariant
        self.step = step
        self.keys = tuple(keys)
        named = f" (keys: {', '.join(repr(k) for k in self.keys)})" if self.keys else ""
        super().__init__(f"invariant {invariant} broken at step {step}{named}: {detail}")


class StepChecker:
    """Holds what the previous call left, and every run id served so far."""

    def __init__(self, env_limit: int, version: Version | None) -> None:
        self.env_limit = env_limit
        self.version = version
        self.served: set[str] = set()
        self.floor = 0.0
        self.last_tags: dict[str, float] = {}  # last tag seen per registered key

    def on_served(self, step: int, key: str, run_id: str) -> None:
        if run_id in self.served:
            raise BrokenStepInvariant(DEQUEUED_ONCE, step, [key], f"{run_id} served twice")
        self.served.add(run_id)

    def within_limits(self, step: int, key: str, key_held: int, env_held: int) -> None:
        # the per-key limit is the env limit (no per-queue limit in the step harness)
        if key_held > self.env_limit:
            raise BrokenStepInvariant(PER_KEY_LIMIT, step, [key], f"{key_held} held")
        if env_held > self.env_limit:
            raise BrokenStepInvariant(ENV_LIMIT, step, [], f"{env_held} held in the env")

    def check_state(
        self,
        step: int,
        state: VtimeState,
        served_tags: Mapping[str, float],
        enqueued: set[str],
        dropped: set[str],
    ) -> None:
        """`state` after the call's trip; `served_tags` the tags the call gave the keys it
        served (and kept); `dropped` the keys the trip may have taken out of ckVtime (drained
        by the dequeue or by an ack)."""
        if state.foreign:
            raise BrokenStepInvariant(TAGS_KNOWN, step, state.foreign, "not a CK queue of B")
        strangers = [k for k in state.tags if k not in enqueued]
        if strangers:
            raise BrokenStepInvariant(TAGS_KNOWN, step, strangers, "tagged but never enqueued")
        if self.version == "head":
            low = [k for k, t in state.tags.items() if k in state.idle and t < state.idle[k]]
            if low:
                raise BrokenStepInvariant(IDLE_BELOW_TAG, step, low, "live tag below parked tag")
        floor = state.floor or 0.0
        if self.floor > floor:
            detail = f"floor {self.floor:g} -> {floor:g}"
            raise BrokenStepInvariant(FLOOR_MONOTONE, step, [], detail)
        self.floor = floor
        self._tags_never_rewind(step, {**served_tags, **state.tags}, dropped)
        if state.listed:  # a key missing from a whole listing is no longer registered
            self.last_tags = {k: t for k, t in self.last_tags.items() if k in state.tags}

    def _tags_never_rewind(self, step: int, seen: Mapping[str, float], dropped: set[str]) -> None:
        for key in dropped:
            self.last_tags.pop(key, None)
        for key, tag in seen.items():
            before = self.last_tags.get(key)
            if before is not None and tag < before:
                detail = f"tag {before:g} -> {tag:g}"
                raise BrokenStepInvariant(TAG_MONOTONE, step, [key], detail)
            self.last_tags[key] = tag
