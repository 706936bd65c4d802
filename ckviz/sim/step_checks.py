"""Invariants of the step harness, checked after every call (docs/TRUST.md lists them).

The vtime state comes from `vtime_state.lua`, which rides at the end of the call's trip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ckviz.errors import InvariantViolation
from ckviz.model.vtime import Version, VtimeState
from ckviz.sim.violations import FLOOR_MONOTONE, IDLE_BELOW_TAG, TAG_MONOTONE, TAGS_KNOWN

__all__ = [
    "FLOOR_MONOTONE",
    "IDLE_BELOW_TAG",
    "TAGS_KNOWN",
    "TAG_MONOTONE",
    "BrokenStepInvariant",
    "StepChecker",
    "VtimeStateChecker",
]

# how a harness reports a broken invariant: (name, step or instant, keys, detail)
Fail = Callable[[str, int, Iterable[str], str], InvariantViolation]

DEQUEUED_ONCE = "dequeued-once"
PER_KEY_LIMIT = "per-key-limit"
ENV_LIMIT = "env-limit"


class BrokenStepInvariant(InvariantViolation):
    """An invariant failed: which one, at which step, for which keys."""

    def __init__(self, invariant: str, step: int, keys: Iterable[str], detail: str) -> None:
        self.invariant = invariant
        self.step = step
        self.keys = tuple(keys)
        named = f" (keys: {', '.join(repr(k) for k in self.keys)})" if self.keys else ""
        super().__init__(f"invariant {invariant} broken at step {step}{named}: {detail}")


class VtimeStateChecker:
    """The vtime rules, for any harness: what the state was after the previous check."""

    def __init__(self, version: Version | None, fail: Fail) -> None:
        self.version = version
        self.fail = fail
        self.floor = 0.0
        self.last_tags: dict[str, float] = {}  # last tag seen per registered key

    def check_state(
        self,
        at: int,
        state: VtimeState,
        served_tags: Mapping[str, float],
        enqueued: Iterable[str] | Callable[[str], bool],
        dropped: set[str],
    ) -> None:
        """`state` after a trip; `served_tags` the tags the trip's calls gave the keys they
        served (and kept); `enqueued` the keys ever enqueued (or a test of one); `dropped` the
        keys the trip may have taken out of ckVtime (drained by a dequeue or by an ack)."""
        fail = self.fail
        if state.foreign:
            raise fail(TAGS_KNOWN, at, state.foreign, "not a CK queue of B")
        known = enqueued if callable(enqueued) else set(enqueued).__contains__
        strangers = [k for k in state.tags if not known(k)]
        if strangers:
            raise fail(TAGS_KNOWN, at, strangers, "tagged but never enqueued")
        if self.version == "head":
            low = [k for k, t in state.tags.items() if k in state.idle and t < state.idle[k]]
            if low:
                raise fail(IDLE_BELOW_TAG, at, low, "live tag below parked tag")
        floor = state.floor or 0.0
        if self.floor > floor:
            raise fail(FLOOR_MONOTONE, at, [], f"floor {self.floor:g} -> {floor:g}")
        self.floor = floor
        self._tags_never_rewind(at, {**served_tags, **state.tags}, dropped)
        if state.listed:  # a key missing from a whole listing is no longer registered
            self.last_tags = {k: t for k, t in self.last_tags.items() if k in state.tags}

    def _tags_never_rewind(self, at: int, seen: Mapping[str, float], dropped: set[str]) -> None:
        for key in dropped:
            self.last_tags.pop(key, None)
        for key, tag in seen.items():
            before = self.last_tags.get(key)
            if before is not None and tag < before:
                raise self.fail(TAG_MONOTONE, at, [key], f"tag {before:g} -> {tag:g}")
            self.last_tags[key] = tag


class StepChecker:
    """Holds what the previous call left, and every run id served so far."""

    def __init__(self, env_limit: int, version: Version | None) -> None:
        self.env_limit = env_limit
        self.version = version
        self.served: set[str] = set()
        self.vtime = VtimeStateChecker(version, BrokenStepInvariant)

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
        """The vtime rules after the call's trip (see `VtimeStateChecker.check_state`)."""
        self.vtime.check_state(step, state, served_tags, enqueued, dropped)
