"""A live queue as a frame source: each refresh's picture (ckviz.live) made into a frame the
app's panes draw as they draw a simulated run's (ckIndex, the per-key queues, the held slots,
the discipline with vtime's tags, the next dequeue's order explained like a simulated pick).

Textual-free (lint-imports keeps Textual out): the watch app asks it on the tape's driver
thread, as the simulated app asks its lanes. It never writes: the reads are ckviz.live's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ckviz.fairness_so_far import SoFar
from ckviz.live.cost import next_interval
from ckviz.live.flag import NO_VTIME
from ckviz.live.names import LiveQueue
from ckviz.live.picture import LivePicture, VariantRow
from ckviz.model.decision import Candidate, Decision
from ckviz.model.queue import DisciplineState, IndexEntry, Shown
from ckviz.model.snapshot import (
    FULL_VIEW,
    EventLog,
    HeldRun,
    KeyFigures,
    KeyRow,
    Snapshot,
    ViewRequest,
)
from ckviz.player.frames import Frame
from ckviz.player.live_lines import LiveVtime

ELSEWHERE = "(elsewhere)"  # who holds the env's slots no variant on screen holds


class _LiveOrigin:
    """What every frame of a live queue says of its origin: no seed (its traffic is its own),
    no second lane, no light key, and keys coloured as they are met."""

    __slots__ = ()

    @property
    def seed(self) -> None:
        return None

    @property
    def compare(self) -> bool:
        return False

    @property
    def light_key(self) -> None:
        return None

    def key_order(self) -> Sequence[str]:
        return ()


@dataclass(frozen=True, slots=True)
class Watched(_LiveOrigin):
    """The queue watched, how often and within what budget (the frames' origin)."""

    queue: LiveQueue
    server: str  # the server, as it may be shown (credentials redacted)
    interval_s: float = 1.0
    budget_ms: float = 5.0

    @property
    def title(self) -> str:
        return self.queue.shown


@dataclass(frozen=True, slots=True)
class Reading(_LiveOrigin):
    """One refresh: the queue watched, its picture, and the wait before the next refresh
    (longer than asked while a refresh costs more than the budget)."""

    watched: Watched
    picture: LivePicture
    number: int  # 1 for the first refresh
    next_wait_s: float

    @property
    def title(self) -> str:
        return self.watched.title

    @property
    def backed_off(self) -> bool:
        return self.next_wait_s > self.watched.interval_s


class LiveSource:
    """Frames of a live queue: `advance` reads it again (one picture a frame), `reframe`
    draws the last picture again under another view. `read` makes one picture (ckviz.live's
    read_picture on the watched server); it raises ckviz's errors (a lost server: exit 3)."""

    def __init__(self, watched: Watched, read: Callable[[], LivePicture]) -> None:
        self.watched = watched
        self._read = read
        self.view = FULL_VIEW
        self.wait_s = watched.interval_s  # the wait before the next refresh, backed off
        self._start_ms: float | None = None  # t = 0: the first read's time_origin
        self._last: Reading | None = None

    def advance(self, instant: bool = False, count: int = 1) -> list[Frame]:
        """One refresh, whatever was asked (reading twice in a row shows nothing more)."""
        picture = self._read()
        if self._start_ms is None:
            self._start_ms = time_origin(picture)
        watched = self.watched
        self.wait_s = next_interval(
            watched.interval_s, self.wait_s, picture.cost, watched.budget_ms
        )
        number = 1 if self._last is None else self._last.number + 1
        self._last = Reading(watched, picture, number, self.wait_s)
        return [self._frame(self._last)]

    def reframe(self) -> list[Frame]:
        return [] if self._last is None else [self._frame(self._last)]

    def set_view(self, view: ViewRequest) -> None:
        self.view = view

    def close(self) -> None:
        """Nothing to let go of: the watched server's keys are never touched."""

    def _frame(self, reading: Reading) -> Frame:
        start = self._start_ms if self._start_ms is not None else reading.picture.read_at_ms
        snapshot = live_snapshot(reading.picture, reading.number, int(start), self.view)
        return Frame(reading, (snapshot,), (SoFar(),))


def time_origin(picture: LivePicture) -> float:
    """Where a watch's time starts: the oldest head the first read saw (its read time if
    none), so times and scores read small, as a simulated run's from its start."""
    heads = [v.head_score for v in picture.variants if v.head_score is not None]
    return min([picture.read_at_ms, *heads])


def live_snapshot(
    picture: LivePicture, number: int, start_ms: int, view: ViewRequest = FULL_VIEW
) -> Snapshot:
    """The picture as a snapshot: time counted from `start_ms` (time_origin), a head's `t` its
    timestamp from that same start, the variants on screen as the per-key rows, the env's held
    runs as its slots, the next order as the next call's decision (worked out from the reads,
    not made), its ckIndex scores as head times from the start too."""
    t = int(picture.read_at_ms) - start_ms
    rows = tuple(_key_row(v) for v in picture.variants if _kept(v.key, view))
    index = tuple(
        IndexEntry(picture.queue.member(v.key), v.key, v.index_score)
        for v in sorted(picture.variants, key=_index_order)
        if v.index_score is not None
    )
    limits = picture.limits
    return Snapshot(
        scenario=picture.queue.shown,
        seed="",
        discipline=picture.discipline,
        step=number,
        t=t,
        done=False,
        env_limit=limits.env_capacity,
        max_count=picture.batch,
        per_key_cap=None,
        total_cap=None,
        total_runs=picture.length_counter or 0,
        index_read=index,
        index_rescored=(),
        keys=rows,
        held=_held(picture),
        order=(),
        next_order=tuple(p.key for p in picture.next_order if p.fate != "outside-window"),
        rescores=False,
        discipline_state=_state(picture),
        events=EventLog([], 0),
        recent=(),
        round_trips=picture.cost.round_trips,
        score_base=start_ms,
        view=view,
        figures=_figures(picture, rows, t, start_ms),
        decision=_decision(picture, start_ms),
        decision_ahead=True,
    )


def _decision(picture: LivePicture, start_ms: int) -> Decision:
    """The next order's picks as a call's candidates, a ckIndex score (a head's timestamp,
    13 digits) as its time from the start: `head t 3`, as the ckIndex pane says it."""

    def value(label: str, shown: Shown) -> tuple[str, Shown]:
        if label == "ckIndex score" and not isinstance(shown, str):
            return ("head t", shown - start_ms)
        return (label, shown)

    return Decision(
        tuple(
            Candidate(p.key, tuple(value(label, v) for label, v in p.rank), p.fate)
            for p in picture.next_order
        )
    )


def _kept(key: str, view: ViewRequest) -> bool:
    return view.only is None or key in view.only


def _index_order(variant: VariantRow) -> tuple[float, str]:
    return (variant.index_score or 0.0, variant.key)


def _key_row(variant: VariantRow) -> KeyRow:
    return KeyRow(variant.key, 1.0, variant.depth, 0, 0, variant.held, variant.head_score, 0)


def _held(picture: LivePicture) -> tuple[HeldRun, ...]:
    """The env's held runs: those of the variants on screen by key (which runs: not read,
    only counted), the rest as held elsewhere (other queues of the env, variants off screen)."""
    held = [
        HeldRun(v.key, f"{v.key} #{n + 1}", None) for v in picture.variants for n in range(v.held)
    ]
    rest = max(0, picture.env_held - len(held))
    return (*held, *(HeldRun(ELSEWHERE, f"#{n + 1}", None) for n in range(rest)))


def _state(picture: LivePicture) -> DisciplineState:
    """What the discipline pane shows: the limits the dequeue reads, and under vtime its
    tags, floor and idle set with the next call's passes."""
    limits = picture.limits
    fields: tuple[tuple[str, float | int | str], ...] = (
        ("env capacity", limits.env_capacity),
        ("queue limit", limits.queue_limit if limits.queue_limit is not None else "none"),
        ("queue held", picture.queue_held),
    )
    vtime = picture.vtime
    if vtime is None:
        # a queue with ckVtime keys read as the baseline: say why (they are stale)
        told = (
            ()
            if picture.discipline_from.startswith(NO_VTIME)
            else (("told from", picture.discipline_from),)
        )
        return DisciplineState("baseline", (("order", "oldest head first (age)"), *fields, *told))
    floor = vtime.floor if vtime.floor is not None else "none"
    per_key = tuple((key, (("tag", tag),)) for key, tag in vtime.tags)
    detail = LiveVtime(vtime, picture.next_order, picture.discipline_from)
    return DisciplineState("vtime", (("floor", floor), *fields), per_key, detail)


def _figures(picture: LivePicture, rows: tuple[KeyRow, ...], t: int, start: int) -> KeyFigures:
    ages = [(age, r.key) for r in rows if (age := r.head_age(t, start)) is not None]
    oldest = max(ages, default=None)
    return KeyFigures(
        tuple(r.key for r in rows),
        len(rows),
        picture.index_total,
        None if oldest is None else (oldest[1], oldest[0]),
        max((r.queued for r in rows), default=0),
    )
