"""Demand-aware fairness: what each key was owed of the dequeues made, and what it got.

Every instant at which runs were dequeued shares its dequeues out among the keys that could
take one then (a run of theirs arrived and not yet dequeued, less what their own per-key cap
forbids): weighted max-min fair, none above what it could take, the excess passed on to the
others (water-filling). A key's fair-share attainment is the dequeues it got over the
dequeues it was owed, summed over the run: 1 is its fair share, 0.1 a tenth of it. A key that
asked for more than its share and got its share is served fairly, however long it waited.
A key owed fewer than MIN_OWED dequeues is not judged: over so short a stretch even a fair
discipline serves someone else first. docs/fairness.md gives the definitions with a worked
example.

Pure functions of a run's dequeue events (and, for a per-key cap, each run's hold), so the
figures are the same whichever path produced the events.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ckviz.fairness_windows import Windows
from ckviz.model.snapshot import DequeueEvent

if TYPE_CHECKING:
    from ckviz.sim.engine import Dequeues

MIN_OWED = 3.0  # dequeues a key must be owed before it is judged
# The one meaning of "starved", for every table note, verdict, finding and the app's words
STARVED_MEANS = (
    "starved: owed 3 or more dequeues at instants when another key had runs waiting too, and "
    "got none of them"
)
UNDER_HALF, UNDER_FAIR = 0.5, 0.9  # the attainment bars the run-level shares count


@dataclass(frozen=True, slots=True)
class OwnLimit:
    """A per-key cap and each run's hold: a key holding `cap` runs waits on itself, not on the
    discipline, so it is owed nothing while it does."""

    cap: int
    holds: Mapping[str, int] = field(default_factory=dict)  # run id -> hold (events in hand)


@dataclass(frozen=True, slots=True)
class KeyService:
    """One key over a run: dequeues owed and got, in all and while another key could take one
    too (alone, a key is owed what it gets)."""

    owed: float
    got: int
    owed_beside_others: float
    got_beside_others: int

    @property
    def attainment(self) -> float | None:
        """Got over owed; None while owed fewer than MIN_OWED (not judged)."""
        return self.got / self.owed if self.owed >= MIN_OWED else None

    @property
    def starved(self) -> bool:
        """Owed at least MIN_OWED dequeues while others were served, and got none of them."""
        return self.owed_beside_others >= MIN_OWED and self.got_beside_others == 0


def water_fill(
    dequeues: float, rooms: Mapping[str, float], weights: Mapping[str, float]
) -> dict[str, float]:
    """`dequeues` shared by weight among the keys of `rooms`, none above its room, what a full
    key cannot take passed on to the others. Keys stay in `rooms`' order (never a set): sums
    in a fixed order give the same floats in every process."""
    share = dict.fromkeys(rooms, 0.0)
    left, open_keys = float(dequeues), [k for k in rooms if rooms[k] > 0]
    while left > 1e-12 and open_keys:
        total = sum(weights.get(k, 1.0) for k in open_keys)
        full = [k for k in open_keys if left * weights.get(k, 1.0) / total >= rooms[k] - share[k]]
        if not full:
            for k in open_keys:
                share[k] += left * weights.get(k, 1.0) / total
            break
        for k in full:
            left -= rooms[k] - share[k]
            share[k] = float(rooms[k])
        open_keys = [k for k in open_keys if k not in full]
    return share


def key_service(
    events: Dequeues | Sequence[DequeueEvent],
    weights: Mapping[str, float],
    waiting_since: Mapping[str, int] | None = None,
    own_limit: OwnLimit | None = None,
    per_call: int | None = None,
    queued: Mapping[str, Sequence[int]] | None = None,
    windows: Windows | None = None,
) -> dict[str, KeyService]:
    """Per key of the run (declared keys first): dequeues owed and got (see the module).

    For a run still in progress, `queued` gives the arrivals of each key's runs not yet
    dequeued (`waiting_since` the oldest one only): they wait from then to the end.
    `per_call` caps what a key can take at one instant (the step harness serves one run per
    key per call). `windows`, when given, is filled with what each key was owed and got by
    the end of each stretch of the run (an interval from the run itself: fairness_intervals).
    """
    from ckviz.sim.engine import as_dequeues  # here: a report reads this module, not the engine

    tape = as_dequeues(events, own_limit.holds if own_limit is not None else None)
    books = Tally(weights, per_call, own_limit.cap if own_limit else None)
    more = [(since, key) for key, since in (waiting_since or {}).items()]
    more += [(t, key) for key, times in (queued or {}).items() for t in times]
    _know_all(books, tape, more)
    arrivals = tape.arrivals(more)
    releases: list[tuple[int, int, str]] = []  # (release time, count, key) of held runs
    held = 0
    if windows is not None and len(tape):
        windows.start(list(books.backlog), tape.first, tape.last)
    coming = next(arrivals, None)
    for now, serves in tape.instants():
        if windows is not None:
            windows.reach(now, books)
        while releases and releases[0][0] <= now:  # released before this instant's serves
            books.release(heapq.heappop(releases)[2])
        while coming is not None and coming[0] <= now:
            books.arrive(coming[1])
            coming = next(arrivals, None)
        books.share_out(len(serves), [key for key, _, _, _ in serves])
        for key, _, _, hold in serves:
            books.dequeue(key)
            if own_limit is not None:
                held += 1
                heapq.heappush(releases, (now + hold, held, key))
    return books.close()


def _know_all(books: Tally, tape: Dequeues, more: list[tuple[int, str]]) -> None:
    """Every key of the run into the tally, in the order of their first arrival (the order
    keys of no declared weight are ranked in: a walk over the arrivals finds it; declared
    keys are ranked by their declaration whatever order they are met in)."""
    keys = [*tape.keys, *(key for _, key in more)]
    if all(key in books.order for key in keys):
        for key in dict.fromkeys(keys):
            books.know(key)
        return
    for _, key in tape.arrivals(more):  # each once, in arrival order
        books.know(key)


@dataclass(slots=True)
class _Was:
    """What a share_out changed, as it was before (`Tally.undo` puts it back)."""

    levels: tuple[float, float] | None = None  # level, beside
    got: dict[str, list[int]] = field(default_factory=dict)  # the served keys'
    paid: dict[str, tuple[list[float], tuple[float, float]]] = field(default_factory=dict)


class Tally:
    """The running tally behind key_service, linear in the events (log factors aside).

    Keys that could take a run are "open". Uncapped open keys all get the same owed per unit
    of weight at an instant, so that is kept once, as a running level (`level`; `beside` only
    counts instants with two or more open keys): a key's owed is its weight times how far
    the level rose while it was open. Only the keys a water-filling caps (room / weight below
    the instant's level) are paid one by one, found lowest first in a heap of room / weight.
    """

    def __init__(self, weights: Mapping[str, float], per_call: int | None, cap: int | None) -> None:
        self.weights = dict(weights)
        self.per_call = per_call
        self.cap = cap
        self.order: dict[str, int] = {k: i for i, k in enumerate(weights)}
        self.backlog: dict[str, int] = {}
        self.held: dict[str, int] = {}
        self.room: dict[str, int] = {}
        self.level = 0.0
        self.beside = 0.0
        self.since: dict[str, tuple[float, float]] = {}  # level, beside when it opened
        self.owed: dict[str, list[float]] = {}  # [owed, owed beside others]
        self.got: dict[str, list[int]] = {}  # [got, got beside others]
        self.open_weight = 0.0
        self.open_count = 0
        self.heap: list[tuple[float, int, int, str]] = []  # room/weight, order, version, key
        self.version: dict[str, int] = {}  # of each key's one live heap entry
        self.posted: dict[str, int] = {}  # the room of each key's live entry (at most its room)
        self.changed: set[str] | None = None  # when a set: keys whose owed, got or room changed

    def know(self, key: str) -> None:
        if key in self.backlog:
            return
        self.weights.setdefault(key, 1.0)
        self.order.setdefault(key, len(self.order))
        self.backlog[key] = self.held[key] = self.room[key] = self.version[key] = 0
        self.posted[key] = 0
        self.owed[key] = [0.0, 0.0]
        self.got[key] = [0, 0]

    def arrive(self, key: str) -> None:
        self.backlog[key] += 1
        self._update(key)

    def release(self, key: str) -> None:
        self.held[key] -= 1
        self._update(key)

    def dequeue(self, key: str) -> None:
        self.backlog[key] -= 1
        if self.cap is not None:
            self.held[key] += 1
        self._update(key)

    def _update(self, key: str) -> None:
        """The key's room anew (its backlog, less what its cap and the per-call limit
        forbid), opening or closing it. One call per arrival or dequeue: it is the tally's
        hot path (a run's every event moves it twice)."""
        room = self.backlog[key]
        if self.cap is not None:
            room = min(room, self.cap - self.held[key])
        if self.per_call is not None:
            room = min(room, self.per_call)
        if room < 0:
            room = 0
        old = self.room[key]
        if room == old:
            return
        self.room[key] = room
        if self.changed is not None:
            self.changed.add(key)
        if old == 0:
            self._open(key)
        elif room == 0:
            self._close(key)
        if room and (old == 0 or room < self.posted[key]):
            self._post(key, room)

    def _open(self, key: str) -> None:
        self.since[key] = (self.level, self.beside)
        self.open_weight += self.weights[key]
        self.open_count += 1

    def _close(self, key: str) -> None:
        self._settle(key)
        self.open_weight -= self.weights[key]
        self.open_count -= 1

    def _post(self, key: str, room: int) -> None:
        """A heap entry for the key at `room`, the one its version names from now on.

        An entry is at most the key's room (a lower bound of its room / weight, so the heap
        still finds the lowest first): a room that grows keeps its entry, one that falls
        below it posts anew, and share_out brings an entry up to date only when its key
        would be capped by it. So a key whose backlog goes up and down posts rarely."""
        self.version[key] += 1
        self.posted[key] = room
        entry = (room / self.weights[key], self.order[key], self.version[key], key)
        heapq.heappush(self.heap, entry)

    def _repost(self, key: str, weight_left: float, left: float) -> None:
        """The key's entry, below its room, would cap it at this instant's level: post its
        room if that caps it too, else the least room that does not (a lower bound still, and
        a low one: posting its room instead, each of its next dequeues would post anew)."""
        room, weight = self.room[key], self.weights[key]
        if room / weight * weight_left < left:
            self._post(key, room)
            return
        # weight_left > 0 here (else its room would cap it too); `room` does not cap it
        start = left * weight / weight_left
        least = room if start >= room else max(1, int(start))
        while least / weight * weight_left < left:  # the test share_out makes, as it makes it
            least += 1
        self._post(key, least)

    def _settle(self, key: str) -> None:
        """Pay the key what the levels rose since it opened (or was last paid)."""
        level, beside = self.since[key]
        weight = self.weights[key]
        self.owed[key][0] += weight * (self.level - level)
        self.owed[key][1] += weight * (self.beside - beside)
        self.since[key] = (self.level, self.beside)

    def share_out(self, dequeues: int, served: list[str], was: _Was | None = None) -> None:
        """Owe this instant's dequeues to the open keys (water-filling), count what each got;
        what it changes kept in `was`, to be taken back (`undo`)."""
        if self.open_count == 0:
            return
        if was is not None:
            was.levels = (self.level, self.beside)
            was.got.update((key, list(self.got[key])) for key in served)
        together = self.open_count >= 2
        if self.changed is not None:
            self.changed.update(served)
        for key in served:
            self.got[key][0] += 1
            self.got[key][1] += together
        left, weight_left = float(dequeues), self.open_weight
        capped: list[tuple[float, int, int, str]] = []
        while self.heap:
            entry = self.heap[0]
            key = entry[3]
            if entry[2] != self.version[key] or not self.room[key]:
                heapq.heappop(self.heap)  # stale: posted anew since, or closed
                continue
            if entry[0] * weight_left >= left:  # room/weight at or above the level: not capped
                break
            if self.posted[key] != self.room[key]:  # its room grew since: not capped after all?
                self._repost(key, weight_left, left)
                continue
            capped.append(heapq.heappop(self.heap))
            if self.changed is not None:
                self.changed.add(key)
            left -= self.room[key]
            weight_left -= self.weights[key]
        rise = left / weight_left if len(capped) < self.open_count else 0.0
        for entry in capped:
            key = entry[3]
            if was is not None:
                was.paid[key] = (list(self.owed[key]), self.since[key])
            self._settle(key)
            self.owed[key][0] += self.room[key]
            self.owed[key][1] += self.room[key] if together else 0.0
            self.since[key] = (self.level + rise, self.beside + (rise if together else 0.0))
            heapq.heappush(self.heap, entry)
        self.level += rise
        if together:
            self.beside += rise

    @contextmanager
    def shared_out_for_now(self, dequeues: int, served: list[str]) -> Iterator[None]:
        """share_out, taken back on leaving (the heap entries it popped are back in)."""
        was = _Was()
        self.share_out(dequeues, served, was)
        try:
            yield
        finally:
            self.undo(was)

    def undo(self, was: _Was) -> None:
        """Take back a share_out (the heap entries it popped are back in already)."""
        if was.levels is not None:
            self.level, self.beside = was.levels
        self.got.update(was.got)
        for key, (owed, since) in was.paid.items():
            self.owed[key], self.since[key] = owed, since

    def so_far(self, keys: Sequence[str]) -> tuple[array[float], array[float]]:
        """Each key's owed and got up to now, as close() would give them, without settling
        anything (settling in pieces would move the run's own sums in their last bits)."""
        owed = array(
            "d",
            (
                self.owed[k][0] + (self.weights[k] * (self.level - self.since[k][0]))
                if self.room[k]
                else self.owed[k][0]
                for k in keys
            ),
        )
        return owed, array("d", (float(self.got[k][0]) for k in keys))

    def close(self) -> dict[str, KeyService]:
        for key, room in self.room.items():
            if room:
                self._settle(key)
        keys = sorted(self.backlog, key=lambda k: self.order[k])
        return {
            k: KeyService(self.owed[k][0], self.got[k][0], self.owed[k][1], self.got[k][1])
            for k in keys
        }
