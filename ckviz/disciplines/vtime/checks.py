"""The vtime rules (floor monotone, tags never rewound while registered, ckVtime holding only
enqueued CK queues of this base queue, HEAD's idle rule), for either clock: fed the state read
that rides at the end of a checked trip (no extra round trip).

The step clock knows which keys a call drained (its trace) and hands them over; the
millisecond clock judges from the ledger's books (`VtimeLedgerCheck`): a key's tag may start
afresh only when the key can have left ckVtime, i.e. a dequeue found (or left) its CK queue
empty, or HEAD's ack emptied it. So a key counts as dropped when its queue was empty at the
previous check (the start of this trip) or is empty now; any other key's tag must not go down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ckviz.disciplines.base import LedgerView
from ckviz.disciplines.vtime.knobs import Version
from ckviz.disciplines.vtime.values import VtimeDequeue, VtimeState
from ckviz.model.clock import Unit
from ckviz.model.invariants import (
    FLOOR_MONOTONE,
    IDLE_BELOW_TAG,
    TAG_MONOTONE,
    TAGS_KNOWN,
    BrokenInvariant,
)


class VtimeStateChecker:
    """The vtime rules, for any harness: what the state was after the previous check."""

    def __init__(self, version: Version | None, unit: Unit = "ms", mixed: bool = False) -> None:
        """`mixed`: a mixed rollout (model/lineup.py). HEAD's idle rule then does not hold: a
        key a flag-off instance enqueued is unregistered, and pass 2 serves it at the floor
        plus a quantum, ignoring its parked tag, which stays parked (SPEC-lifecycle 7.2)."""
        self.version = version
        self.mixed = mixed
        self.unit: Unit = unit
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
        fail = self._broken
        if state.foreign:
            raise fail(TAGS_KNOWN, at, state.foreign, "not a CK queue of B")
        known = enqueued if callable(enqueued) else set(enqueued).__contains__
        strangers = [k for k in state.tags if not known(k)]
        if strangers:
            raise fail(TAGS_KNOWN, at, strangers, "tagged but never enqueued")
        if self.version == "head" and not self.mixed:
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
                raise self._broken(TAG_MONOTONE, at, [key], f"tag {before:g} -> {tag:g}")
            self.last_tags[key] = tag

    def _broken(self, name: str, at: int, keys: Iterable[str], detail: str) -> BrokenInvariant:
        return BrokenInvariant(name, at, keys, detail, self.unit)


class VtimeLedgerCheck:
    """Floor monotone, tags never rewound while registered, ckVtime holding only enqueued CK
    queues of this base queue (and HEAD's idle rule), checked after every trip."""

    def __init__(self, version: Version, planned: Mapping[str, int], mixed: bool = False) -> None:
        self.rules = VtimeStateChecker(version, mixed=mixed)
        self.planned = dict(planned)
        self.empty: set[str] = set(planned)  # keys with nothing queued at the last check
        self.checks = 0

    def check(self, ledger: LedgerView, state: VtimeState, t: int, asked: Iterable[str]) -> None:
        books = ledger.books

        def enqueued(key: str) -> bool:
            book = books.get(key)
            return book is not None and book.to_arrive < self.planned.get(key, 0)

        self.checks += 1
        candidates = {*state.tags, *asked, *ledger.touched}
        empty_now = {k for k in candidates if (book := books.get(k)) is None or not book.queued}
        self.rules.check_state(t, state, {}, enqueued, (candidates & self.empty) | empty_now)
        self.empty -= candidates
        self.empty |= empty_now


class VtimeCallCheck:
    """The vtime rules on the step clock: the calls' traces say which keys they served (and
    their new tags) and drained; an acked key may have left ckVtime too (HEAD's ack drops it,
    and either version's next dequeue may find its queue empty)."""

    def __init__(self, version: Version, mixed: bool = False) -> None:
        self.rules = VtimeStateChecker(version, "step", mixed)
        self._dropped: set[str] = set()  # keys the trips since the last check may have dropped

    def acked(self, key: str) -> None:
        self._dropped.add(key)

    def after_call(
        self,
        at: int,
        call: VtimeDequeue,
        state: VtimeState | None,
        enqueued: Iterable[str] | Callable[[str], bool],
    ) -> None:
        """Check `state` as the call's trip read it (nothing to check without one)."""
        dropped = self._dropped | {v.key for v in call.visits if v.drain}
        self._dropped = set()
        if state is not None:
            served = {v.key: v.tag for v in call.visits if v.tag is not None and not v.drain}
            self.rules.check_state(at, state, served, enqueued, dropped)
