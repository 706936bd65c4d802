"""The vtime rules under concurrent callers (`ckviz stress`): the floor never goes down as one
observer sees it (each consumer's own dequeue reports, the watcher's reads), and a tag never
goes down between two whole reads with no enqueue of its key in flight between them (only an
enqueue can re-register a key). Counted, not raised: a stress run reports them all."""

from __future__ import annotations

from collections.abc import Callable

from ckviz.disciplines.base import DequeueReport, Tally
from ckviz.disciplines.vtime.values import VtimeDequeue, VtimeState
from ckviz.model.invariants import FLOOR_MONOTONE, TAG_MONOTONE


class VtimeUnderConcurrency:
    """The floor each observer last saw, and the tags of the last whole read."""

    def __init__(self) -> None:
        self._floors: dict[str, float] = {}  # observer -> last floor seen
        self._tags: dict[str, float] | None = None  # the last whole read's (None: none yet)

    def dequeued(self, observer: str, report: DequeueReport, tally: Tally) -> None:
        """A dequeue call's reply, as `observer` got it (no floor: the env was full)."""
        assert isinstance(report, VtimeDequeue)  # the door's reader made it
        if report.floor is not None:
            self._floor_seen(observer, report.floor, tally)

    def read(
        self, observer: str, state: object, quiet: Callable[[str], bool], tally: Tally
    ) -> None:
        """A state read; `quiet`: whether no enqueue of a key was in flight since the last."""
        assert isinstance(state, VtimeState)  # the door's reader made it
        if state.floor is not None:
            self._floor_seen(observer, state.floor, tally)
        before, self._tags = self._tags, dict(state.tags) if state.listed else None
        if before is None or not state.listed:
            return
        for key, tag in state.tags.items():
            if key in before and quiet(key):
                tally.checked(TAG_MONOTONE)
                if tag < before[key]:
                    tally.broke(TAG_MONOTONE, f"{key!r} tag {before[key]:g} -> {tag:g}")

    def _floor_seen(self, observer: str, floor: float, tally: Tally) -> None:
        tally.checked(FLOOR_MONOTONE)
        last = self._floors.get(observer)
        if last is not None and floor < last:
            tally.broke(FLOOR_MONOTONE, f"{observer} saw the floor go {last:g} -> {floor:g}")
        self._floors[observer] = floor
