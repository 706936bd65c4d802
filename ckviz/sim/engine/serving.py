"""The door between the driver and a discipline: what a serve attempt adds to a trip.

Before each dequeue the driver asks the discipline's serve plan what to do. Python
disciplines (client-side rescoring) need a fresh ckIndex read and write their order back as
scores; the baseline, and a discipline whose state lives in Redis, leave the order to the
dequeue script (their scripts and keys come with the discipline's `Door`).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, cast

from ckviz.disciplines.base import (
    DequeueReport,
    Discipline,
    KeepsStateInRedis,
    LedgerCheck,
    RanksFirst,
    Waiting,
)
from ckviz.model.arithmetic import rescore_scores
from ckviz.model.clock import SCORE_BASE
from ckviz.model.decision import INDEX_SCORE, TOP, Rank
from ckviz.model.queue import DequeuedRun, IndexEntry, columns_of
from ckviz.store.keys import KEY_OF, key_of_member
from ckviz.store.runqueue import Trip

_SERIALS = itertools.count()  # which serve attempt decided last, over every consumer's plan


@dataclass(slots=True)
class Decided:
    """What a serve attempt decided, kept for the picture (decision.py reads it): the
    best-ranked candidates with what the discipline ranked them by as it decided (empty for the
    Lua's own order: ckIndex's scores are its ranks), and what the call took, once its reply is
    in (key, head score)."""

    serial: int
    ranked: list[tuple[str, Rank]]
    served: list[tuple[str, float]] | None = None


class Rescore(NamedTuple):
    """An order written into ckIndex: the members best first and their scores."""

    members: list[str]
    scores: list[int]

    def order(self, limit: int | None = None) -> tuple[str, ...]:
        """The first `limit` keys, best first (built when a snapshot asks, not on every
        serve; at 10,000 keys a pane shows a hundred of them)."""
        return tuple(map(key_of_member, self.members[:limit]))

    def entries(self, limit: int | None = None) -> tuple[IndexEntry, ...]:
        """ckIndex as rescored, its first `limit` entries (built when a snapshot asks, not
        on every serve)."""
        members = self.members[:limit]
        keys, scores = map(key_of_member, members), map(float, self.scores[:limit])
        return tuple(map(IndexEntry, members, keys, scores))


class Queued(Waiting, Protocol):
    """The books' queued keys, and Redis's word on which of them ckIndex holds: the books run
    ahead of it by the enqueues (and nacks) a trip not yet sent carries, as when the env is
    full at an instant's end."""

    def indexed(self, keys: Sequence[str]) -> list[bool]: ...  # a round trip


class ServePlan(Protocol):
    """What a discipline adds to the trip before each dequeue."""

    rescores: bool  # whether it needs a fresh ckIndex read and rewrites the scores
    watched: bool  # read the discipline's state after every trip, checked or not
    redis_order: bool  # the next dequeue serves ckIndex in Redis's order (its first = pick)
    # its next order is a ranking of every ckIndex member as read (else: ckIndex's first
    # entries, or the books' `Waiting` keys, are enough)
    ranks_index: bool

    @property
    def decided(self) -> Decided | None:
        """The last serve attempt whose reply is in (the app's "why")."""
        ...

    def before_dequeue(
        self, trip: Trip, index: Sequence[IndexEntry], now: int, wall_now: int
    ) -> Rescore | None:
        """Add what goes before the dequeue to `trip`; `index` is ckIndex as last read (the
        millisecond driver asks only a plan that `rescores`: the others add nothing)."""
        ...

    def next_order(
        self,
        index: Sequence[IndexEntry],
        now: int,
        limit: int | None = None,
        waiting: Queued | None = None,
    ) -> tuple[str, ...]:
        """The first `limit` keys (None: all) in the order the next dequeue would see them
        (no side effects to the run); `waiting`: the keys with runs queued, for a plan that
        need not rank `index` (then only its first `limit` entries may be read)."""
        ...

    def taken(self, reply: Any) -> list[DequeuedRun]:
        """The runs a dequeue reply handed out (a reply may carry more: it goes on to the
        discipline)."""
        ...

    def read_state(self, trip: Trip, listing_limit: int, keys: Iterable[str]) -> int | None:
        """Add the read of the discipline's own keys, if it has any; the reply's slot."""
        ...

    def state_read(self, reply: Any) -> object | None:
        """Hand the read's reply to the discipline; what the invariants check."""
        ...

    def ledger_check(self, planned: Mapping[str, int], mixed: bool = False) -> LedgerCheck | None:
        """The discipline's own rules over its state in Redis, if it keeps one there (`mixed`:
        beside consumers of another discipline, model/lineup.py)."""
        ...


class _Plain:
    """A dequeue reply of runs only, and no state of the discipline's in Redis."""

    watched = False
    _last: Decided | None = None
    # the last call's serial and runs, until a picture asks what it decided: a run makes two
    # calls per dequeued run and a headless one never asks
    _served: tuple[int, list[DequeuedRun]] | None = None

    @property
    def decided(self) -> Decided | None:
        """The last serve attempt whose reply is in."""
        if self._served is not None:
            serial, runs = self._served
            self._last = Decided(serial, [], [(run.key, run.score) for run in runs])
            self._served = None
        return self._last

    def taken(self, reply: Any) -> list[DequeuedRun]:
        # (annotated, not cast(): `cast(list[...], ...)` builds its generic type every call)
        runs: list[DequeuedRun] = reply
        self._served = (next(_SERIALS), runs)
        return runs

    def read_state(self, trip: Trip, listing_limit: int, keys: Iterable[str]) -> int | None:
        return None

    def state_read(self, reply: Any) -> object | None:
        return None

    def ledger_check(self, planned: Mapping[str, int], mixed: bool = False) -> LedgerCheck | None:
        return None


class LuaOrder(_Plain):
    """The dequeue script orders ckIndex itself: lowest score first. Nothing to add."""

    rescores = False
    redis_order = True
    ranks_index = False

    def before_dequeue(
        self, trip: Trip, index: Sequence[IndexEntry], now: int, wall_now: int
    ) -> Rescore | None:
        return None

    def next_order(
        self,
        index: Sequence[IndexEntry],
        now: int,
        limit: int | None = None,
        waiting: Queued | None = None,
    ) -> tuple[str, ...]:
        return age_order(index)[:limit]


class InRedis(LuaOrder):
    """The discipline's order lives in Redis, kept by its own scripts: nothing to add before
    a dequeue; its dequeue reports (passes, floor) and its state read go to the discipline."""

    redis_order = False  # the Lua ranks by the tags it keeps

    def __init__(self, discipline: KeepsStateInRedis) -> None:
        self.discipline = discipline
        self.watched = discipline.traced

    def next_order(
        self,
        index: Sequence[IndexEntry],
        now: int,
        limit: int | None = None,
        waiting: Queued | None = None,
    ) -> tuple[str, ...]:
        if waiting is not None and limit is not None:  # a screenful, not every member ranked
            return first_indexed(lambda n: self.discipline.upcoming(waiting, n), waiting, limit)
        return keys_of(self.discipline.order(index, now), limit)

    def taken(self, reply: Any) -> list[DequeuedRun]:
        call: DequeueReport = reply
        if call.called:
            self.discipline.on_dequeue_report(call)
        return call.runs

    def read_state(self, trip: Trip, listing_limit: int, keys: Iterable[str]) -> int | None:
        return trip.read_state(listing_limit, keys)

    def state_read(self, reply: Any) -> object | None:
        state: object = reply  # its door's reader made it
        self.discipline.on_state_read(state)
        return state

    def ledger_check(self, planned: Mapping[str, int], mixed: bool = False) -> LedgerCheck | None:
        return self.discipline.ledger_check(planned, mixed)


class Rescoring(_Plain):
    """A Python discipline ranks ckIndex as read and the trip writes that rank as scores."""

    rescores = True
    redis_order = False
    ranks_index = True

    def __init__(self, discipline: Discipline) -> None:
        self.discipline = discipline
        self._pending: deque[_Deciding | None] = deque()  # sent, their replies not yet in
        # the last decision whose reply is in, and the runs it took, until a picture asks
        # what it decided (a headless run never does)
        self._answered: tuple[_Deciding, list[DequeuedRun]] | None = None

    @property
    def decided(self) -> Decided | None:
        """The last serve attempt whose reply is in."""
        if self._answered is not None:
            deciding, runs = self._answered
            served = [(run.key, run.score) for run in runs]
            self._last = Decided(deciding.serial, deciding.ranked(), served)
            self._answered = None
        return self._last

    def before_dequeue(
        self, trip: Trip, index: Sequence[IndexEntry], now: int, wall_now: int
    ) -> Rescore | None:
        if not index:
            self._pending.append(None)
            return None
        order = self.discipline.advance(index, now)
        scores = rescore_scores(len(order), wall_now)
        trip.rescore(order, scores)
        self._pending.append(self._deciding(index, order, now))
        return Rescore(order, scores)

    def _deciding(self, index: Sequence[IndexEntry], order: list[str], now: int) -> _Deciding:
        """What only this moment can give of the decision: the discipline's rank of each of
        the first TOP members' keys, its state as it decided (the rest waits for a reader)."""
        first = order[:TOP]
        ranks = [self.discipline.rank_of(KEY_OF[member]) for member in first]
        return _Deciding(next(_SERIALS), index, first, ranks, now)

    def taken(self, reply: Any) -> list[DequeuedRun]:
        runs: list[DequeuedRun] = reply
        deciding = self._pending.popleft() if self._pending else None
        if deciding is not None:
            self._answered = (deciding, runs)
        return runs

    def next_order(
        self,
        index: Sequence[IndexEntry],
        now: int,
        limit: int | None = None,
        waiting: Queued | None = None,
    ) -> tuple[str, ...]:
        if not index:
            return ()
        if limit is not None and isinstance(self.discipline, RanksFirst):  # no full sort
            return keys_of(self.discipline.first(index, now, limit), None)
        return keys_of(self.discipline.order(index, now), limit)


class _Deciding(NamedTuple):
    """A rescore's decision as made: its serial, ckIndex as ranked (`read`), the order's first
    TOP members and their keys' ranks then; `ranked()` makes the picture's list from them."""

    serial: int
    read: Sequence[IndexEntry]
    first: list[str]
    ranks: list[Rank]
    now: int

    def ranked(self) -> list[tuple[str, Rank]]:
        """The first members with their ranks, then the tie-break the order made (by_priority:
        rank, then ckIndex's score as read, then the member): the score from the run's start
        (a head's arrival; one an earlier rescore wrote sits above every head)."""
        members, _, scores = columns_of(self.read)
        ranked = []
        for member, rank in zip(self.first, self.ranks, strict=True):
            read: Rank = ((INDEX_SCORE, float(scores[members.index(member)] - SCORE_BASE)),)
            ranked.append((key_of_member(member), (*rank, *read)))
        return ranked


def serve_plan(discipline: Discipline) -> ServePlan:
    """The plan the discipline's door asks for."""
    if discipline.door.rescores:
        return Rescoring(discipline)
    if discipline.door.reads:
        return InRedis(cast(KeepsStateInRedis, discipline))
    return LuaOrder()


def first_indexed(
    first: Callable[[int], Sequence[str]], queued: Queued, limit: int
) -> tuple[str, ...]:
    """The first `limit` keys of an order over the books' queued keys (`first(n)`: its first
    n) that ckIndex holds now: the order over ckIndex's members. The books hold every member
    (and, between trips, the keys an unsent trip enqueues): asked more until enough are in."""
    shown: list[str] = []
    asked, want = 0, limit
    while True:
        candidates = first(want)
        fresh = candidates[asked:]
        shown += [key for key, inside in zip(fresh, queued.indexed(fresh), strict=True) if inside]
        asked = len(candidates)
        if len(shown) >= limit or asked < want:
            return tuple(shown[:limit])
        want *= 2


def keys_of(members: Sequence[str], limit: int | None) -> tuple[str, ...]:
    """The keys of the first `limit` ckIndex members (None: all): a member names its key."""
    return tuple(map(key_of_member, members[:limit]))


def age_order(index: Sequence[IndexEntry]) -> tuple[str, ...]:
    """What the Lua itself will serve first: lowest score, ties by member."""
    return tuple(e.key for e in sorted(index, key=lambda e: (e.score, e.member)))
