"""Immutable views of the driver after a step: what the terminal app (and tests) read."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, NamedTuple, overload

from ckviz.model.arithmetic import scan_window
from ckviz.model.decision import Decision
from ckviz.model.history import History
from ckviz.model.queue import DisciplineState, IndexEntry


class DequeueEvent(NamedTuple):
    """A run leaving its CK queue: who, which run, when it arrived, when it was dequeued (a
    named tuple: one per run served, and a frozen dataclass costs three times as much to
    build)."""

    key: str
    run_id: str
    arrival_ms: int
    dequeued_ms: int

    @property
    def wait_ms(self) -> int:
        return self.dequeued_ms - self.arrival_ms


# Builds a DequeueEvent from a (key, run id, arrival, dequeued) tuple without a Python-level call.
dequeue_event = partial(tuple.__new__, DequeueEvent)


QueueEventKind = Literal["enqueue", "dequeue", "ack", "nack", "dead", "expire"]


@dataclass(frozen=True, slots=True)
class QueueEvent:
    """One line of the event log."""

    kind: QueueEventKind
    t: int
    key: str
    run_id: str
    by: str | None = None  # in a mixed rollout, who called: its consumer and discipline


LoggedEvent = tuple[QueueEventKind, int, str, str, str | None]  # a QueueEvent's fields


class QueueLog:
    """A read-only prefix of a run's whole queue-event log, kept as tuples (shared, never
    copied): a key's own story asks it for that key's events only."""

    __slots__ = ("_length", "_logged")

    def __init__(self, logged: list[LoggedEvent], length: int) -> None:
        self._logged = logged
        self._length = length

    def __len__(self) -> int:
        return self._length

    def of_key(self, key: str) -> list[QueueEvent]:
        """`key`'s events up to this prefix's end, oldest first."""
        logged = itertools.islice(self._logged, self._length)
        return [QueueEvent(*e) for e in logged if e[2] == key]

    def last(
        self, count: int, key: str | None = None, kinds: frozenset[str] | None = None
    ) -> list[QueueEvent]:
        """The last `count` events of `key` (None: any) of `kinds` (None: any), oldest first."""
        found: list[QueueEvent] = []
        for i in range(self._length - 1, -1, -1):
            e = self._logged[i]
            if (key is None or e[2] == key) and (kinds is None or e[0] in kinds):
                found.append(QueueEvent(*e))
                if len(found) >= count:
                    break
        return found[::-1]


@dataclass(frozen=True, slots=True)
class HeldRun:
    """A run holding a slot of the env until `release_ms` (None: not known, as for a live
    queue's runs, held until their worker acks them)."""

    key: str
    run_id: str
    release_ms: int | None


@dataclass(frozen=True, slots=True)
class ConsumerService:
    """What one consumer got from its turns at the dequeue so far."""

    name: str  # c1..cN
    calls: int  # dequeue calls it made
    empty_calls: int  # calls that took nothing
    dequeued: int  # runs its calls took
    # in a mixed rollout (model/lineup.py): its discipline, the runs it enqueued, and those
    # it acked, nacked and dead-lettered
    discipline: str | None = None
    enqueued: int = 0
    acked: int = 0
    nacked: int = 0
    dead_lettered: int = 0


@dataclass(frozen=True, slots=True)
class KeyRow:
    """Per-key counts at this moment."""

    key: str
    weight: float
    queued: int
    to_arrive: int
    dequeued: int
    held: int
    true_head: float | None  # lowest queued timestamp, as the Lua would restore it
    wait_sum_ms: int

    @property
    def mean_wait_ms(self) -> float | None:
        return self.wait_sum_ms / self.dequeued if self.dequeued else None

    def head_age(self, t: int, score_base: int) -> float | None:
        """How long the oldest queued run has waited at `t` (None: nothing queued, or its
        head not due yet: a retry's backoff or a delay has not started it waiting)."""
        if self.true_head is None or self.true_head - score_base > t:
            return None
        return t - (self.true_head - score_base)

    def wait_so_far(self, t: int, score_base: int) -> float | None:
        """The mean wait counting the oldest queued run as if served at `t` (None: no runs
        yet). A mean over served runs alone gives a key never served no wait at all, so it
        would look best; counting the head's age makes a starved key look as bad as it is."""
        return wait_so_far(self.wait_sum_ms, self.dequeued, self.head_age(t, score_base))


def wait_so_far(wait_sum_ms: int, dequeued: int, head_age: float | None) -> float | None:
    """`KeyRow.wait_so_far` from its parts (the driver ranks keys by it without rows)."""
    if head_age is None or head_age < 0:  # nothing queued, or not due yet: not waiting
        return wait_sum_ms / dequeued if dequeued else None
    return (wait_sum_ms + head_age) / (dequeued + 1)


@dataclass(frozen=True, slots=True)
class KeyLifeRow:
    """One key's run lifecycle at this moment (docs/lifecycle.md)."""

    waiting: int  # queued runs whose score lies ahead: a retry's backoff, or a delay
    next_due: int | None  # when the first of them comes due (the clock's time)
    retries: int  # nacks that queued a run again
    expired: int  # runs that expired queued, never served
    dead_lettered: int


@dataclass(frozen=True, slots=True)
class LifeView:
    """The lifecycle as the app shows it: for the rows carried only, so a large run stays
    cheap, and the TTL queue's first entries."""

    keys: Mapping[str, KeyLifeRow]  # by key, for the rows the snapshot carries
    next_expiries: tuple[tuple[str, str, int], ...]  # (key, run id, when), soonest first
    ttl_pending: int  # runs with a TTL entry not yet served or expired
    next_sweep: int | None  # when the TTL consumer sweeps next (None: no sweep to come)


SORTS = ("scenario", "queued", "out", "age", "wait")  # what a view may sort keys by


@dataclass(frozen=True, slots=True)
class ViewRequest:
    """Which per-key rows a snapshot carries: those the app's panes can show, not all K.

    The default asks for every key in the scenario's order (headless runs, tests, export).
    A view sorts by one of SORTS (largest first, ties in natural order), keeps `limit` rows,
    and puts `pinned` keys (then the longest-waiting key, if asked) on top. `only` is what a
    filter lets through, in the scenario's order (None: every key); `also` names keys some
    pane needs whatever the sort (carried in `Snapshot.rows`, not listed in `keys`);
    `index_limit` caps the ckIndex entries and the next order's keys carried. `waits` asks
    for every matched key's wait so far (compare mode's CDF draws all of them, not the rows).
    """

    sort: str = SORTS[0]
    limit: int | None = None
    pinned: tuple[str, ...] = ()
    pin_longest_wait: bool = False
    only: tuple[str, ...] | None = None
    also: tuple[str, ...] = ()
    index_limit: int | None = None
    waits: bool = False


FULL_VIEW = ViewRequest()


CDF_LEVELS = range(4, 11)  # the wait CDF's rows: 4 to 10 fractions of the keys, as fit


def cdf_rank(fraction: float, count: int) -> int:
    """The nearest rank (1-based) below which `fraction` of `count` values lie."""
    return max(1, min(count, math.ceil(fraction * count)))


@dataclass(frozen=True, slots=True)
class Waits:
    """Every matched key's wait so far as the wait CDF reads it: how many, and the value at
    each rank a CDF of CDF_LEVELS rows asks for (k/levels of the keys, nearest rank). A
    frame keeps these few figures, not every key's wait (100,000 floats a lane a frame,
    kept for step-back, for a dozen points drawn)."""

    count: int
    at_rank: Mapping[int, float]

    @classmethod
    def of(cls, ordered: Sequence[float]) -> Waits:
        """The figures of `ordered` (lowest first)."""
        n = len(ordered)
        ranks = {cdf_rank(k / levels, n) for levels in CDF_LEVELS for k in range(1, levels + 1)}
        return cls(n, {rank: ordered[rank - 1] for rank in sorted(ranks)} if n else {})

    def quantile(self, fraction: float) -> float:
        """The nearest-rank wait below which `fraction` of the keys lie (a fraction k/levels,
        levels in CDF_LEVELS)."""
        return self.at_rank[cdf_rank(fraction, self.count)]

    @property
    def longest(self) -> float:
        return self.at_rank[self.count]


@dataclass(frozen=True, slots=True)
class KeyFigures:
    """What a snapshot says about every key, whichever rows it carries."""

    key_names: tuple[str, ...]  # every key of the run, the scenario's order (shared)
    matched: int  # keys the view's filter lets through (every key without one)
    index_size: int  # ckIndex members (index_read may carry only the first ones)
    longest_wait: tuple[str, float] | None  # the key whose head has waited longest, how long
    deepest: int  # most runs queued on one key
    # every matched key's wait so far, as the CDF reads it, when the view asked (else None)
    waits: Waits | None = None


class EventLog(Sequence[DequeueEvent]):
    """A read-only prefix of the driver's append-only dequeue log (shared, never copied)."""

    __slots__ = ("_events", "_length")

    def __init__(self, events: list[DequeueEvent], length: int) -> None:
        self._events = events
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> DequeueEvent: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[DequeueEvent]: ...
    def __getitem__(self, index: int | slice) -> DequeueEvent | Sequence[DequeueEvent]:
        if isinstance(index, slice):
            return self._events[: self._length][index]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._events[index]

    def __iter__(self) -> Iterator[DequeueEvent]:
        for i in range(self._length):
            yield self._events[i]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything one step of the driver leaves behind."""

    scenario: str
    seed: str
    discipline: str
    step: int
    t: int
    done: bool
    env_limit: int
    max_count: int
    per_key_cap: int | None
    total_cap: int | None
    total_runs: int
    index_read: tuple[IndexEntry, ...]  # ckIndex as the last read returned it
    index_rescored: tuple[IndexEntry, ...]  # the scores the last rescore wrote (empty if none)
    keys: tuple[KeyRow, ...]
    held: tuple[HeldRun, ...]
    order: tuple[str, ...]  # the discipline's last chosen order, keys best first
    next_order: tuple[str, ...]  # how the next dequeue will see ckIndex (preview, no side effects)
    rescores: bool  # whether the discipline rewrites ckIndex scores before each dequeue
    discipline_state: DisciplineState
    events: EventLog
    recent: tuple[QueueEvent, ...]  # the latest events, newest last (the Events pane's)
    round_trips: int
    score_base: int
    taken_from: int = 0  # events[taken_from:] are the dequeues of the last frame's step(s)
    consumers: tuple[ConsumerService, ...] = ()  # per consumer, in c1..cN order
    next_consumer: str | None = None  # whose turn the next dequeue is (None: the run is done)
    history: History | None = None  # the run so far in time buckets (the app's pictures)
    # What the view asked for (ViewRequest), the rows carried by key (the view's and those
    # other panes need) and the figures over every key; None: `keys` holds every key.
    view: ViewRequest = FULL_VIEW
    carried: Mapping[str, KeyRow] | None = None
    figures: KeyFigures | None = None

    @property
    def rows(self) -> Mapping[str, KeyRow]:
        """Every row carried, by key (look it up once per frame: it may be built here)."""
        return self.carried if self.carried is not None else {r.key: r for r in self.keys}

    @property
    def every_key(self) -> KeyFigures:
        """Figures over every key: the driver's, or those of `keys` when it holds them all."""
        if self.figures is not None:
            return self.figures
        keys = self.keys
        ages = [
            (age, r.key) for r in keys if (age := r.head_age(self.t, self.score_base)) is not None
        ]
        oldest = max(ages, default=None)
        return KeyFigures(
            tuple(r.key for r in keys),
            len(keys),
            len(self.index_read),
            None if oldest is None else (oldest[1], oldest[0]),
            max((r.queued for r in keys), default=0),
        )

    time_unit: str = "ms"  # what `t` and the times count: "ms", or "step" (step harness)
    decision: Decision | None = None  # the last dequeue call's candidates (the app's "why")
    # the decision is the next call's, worked out from a read (a live queue's), none made yet
    decision_ahead: bool = False
    # The step clock's last step: events[call_from:] are its call's dequeues, and whether it
    # made a call at all (None: the millisecond clock, whose steps are the frames').
    call_from: int | None = None
    called: bool | None = None
    life: LifeView | None = None  # the run lifecycle's, when the scenario has one
    log: QueueLog | None = None  # every queue event so far (the app's runs; None: not kept)
    # the consumer (c1..cN) whose dequeue call the last round made: with several, the "this
    # step" line names it and reads the rule of its discipline (None: the round made no call)
    caller: str | None = None

    @property
    def taken(self) -> Sequence[DequeueEvent]:
        """The runs the "this step" line names: on the step clock the last call's only (a
        frame after many calls, as at the end of a run, describes the last); otherwise those
        dequeued since the frame before this one."""
        start = self.taken_from if self.call_from is None else self.call_from
        return self.events[start:]

    @property
    def dequeued(self) -> int:
        return len(self.events)

    @property
    def free_slots(self) -> int:
        return max(0, self.env_limit - len(self.held))

    @property
    def scan_window(self) -> int:
        """How many ckIndex entries the next dequeue will look at (0: it takes nothing)."""
        return scan_window(self.max_count, self.env_limit, len(self.held), self.total_cap)

    @property
    def full(self) -> str | None:
        """What keeps the next dequeue from taking anything, if something does."""
        held = len(self.held)
        if held >= self.env_limit:
            return "env full"
        if self.total_cap is not None and held >= self.total_cap:
            return "total cap full"
        return None
