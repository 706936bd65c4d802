"""What every discipline is: a door to Redis, an order of the active CK queues, a service hook."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ckviz.model.decision import Decision, Rank
from ckviz.model.matrix import Treatment
from ckviz.model.queue import DequeuedRun, DisciplineState, IndexEntry, Shown, columns_of
from ckviz.store.scripts import Door

Weights = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class Tuning:
    """What a discipline may be given beyond weights: its own knobs, resolved from the cell's
    scenario and treatment by its registry entry (None: it has none), and whether its dequeue
    should say what it looked at (the app and the step harness ask; headless runs never do)."""

    knobs: object = None
    trace: bool = False


DEFAULT_TUNING = Tuning()


class Discipline(Protocol):
    """A fairness policy the driver consults before each dequeue call.

    `door` says which scripts its runs go through and whether the driver rescores ckIndex
    from `advance` before each dequeue; a discipline whose state lives in Redis names its
    own scripts and keys there and leaves the ordering to its Lua.
    """

    name: str
    door: Door

    def order(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        """The active CK queue members, best first, as a serve at `now` would rank them.
        Pure: the state is untouched (the app previews the next pick with it)."""
        ...

    def advance(self, active: Sequence[IndexEntry], now: int) -> list[str]:
        """Time moved on to `now` with `active` waiting: commit what ranking them changes
        (SFQ's floor, DRR's deficits, CoDel's clocks) and return `order(active, now)`."""
        ...

    def on_serviced(self, key: str) -> None:
        """The dequeue just handed out a run of `key`."""
        ...

    def rank_of(self, key: str) -> Rank:
        """What `key` is ranked by as the state stands (right after `advance`: as it decided),
        most significant first, lower first; the tie-breaks (score as read, member) are the
        driver's to add. The app's "why" reads it."""
        ...

    def state(self, keys: Collection[str] | None = None) -> DisciplineState:
        """What it shows of itself; per key only for `keys` when given (the app's view
        shows a few keys of thousands)."""
        ...


@runtime_checkable
class RanksFirst(Protocol):
    """A discipline that can rank the best few of many keys without ranking them all."""

    def first(self, active: Sequence[IndexEntry], now: int, limit: int) -> list[str]:
        """`order(active, now)[:limit]` (the app previews a screenful of 10,000 keys)."""
        ...


class BookView(Protocol):
    """One key's book, as a state check reads it."""

    @property
    def queued(self) -> Sized: ...  # its runs queued
    @property
    def to_arrive(self) -> int: ...  # its runs not yet enqueued


class LedgerView(Protocol):
    """The millisecond clock's books, as a state check reads them."""

    @property
    def books(self) -> Mapping[str, BookView]: ...
    @property
    def touched(self) -> set[str]: ...  # keys the trip enqueued or acked


class Waiting(Protocol):
    """The keys with runs queued, as a picture's next order reads them: ckIndex's members, from
    the books (the checks hold the two equal after every trip), without reading ckIndex."""

    def queued(self, key: str) -> bool: ...  # whether `key` has runs queued

    def keys(self) -> Iterable[str]: ...  # every key with runs queued

    def count(self) -> int: ...  # how many keys have runs queued

    def moved(self, reader: object) -> set[str] | None:
        """The keys whose queue changed since `reader` last asked (None: its first time)."""
        ...


class DequeueReport(Protocol):
    """What the dequeue of a discipline in Redis replies: its runs, and more of its own."""

    @property
    def runs(self) -> list[DequeuedRun]: ...
    @property
    def called(self) -> bool: ...  # False: the env was full, the script did nothing


class LedgerCheck(Protocol):
    """A discipline's own rules, checked after every trip against its state as read and the
    books (the millisecond clock's)."""

    def check(self, ledger: LedgerView, state: Any, t: int, asked: Iterable[str]) -> None: ...


class OnSteps(Protocol):
    """A discipline in Redis on the step clock: fed each call's report and its state as the
    call's trip read it, it checks its rules (when asked) and says what the app shows."""

    def acked(self, key: str) -> None: ...

    def read(self, state: object) -> None: ...

    def called(
        self, at: int, report: DequeueReport, enqueued: Iterable[str] | Callable[[str], bool]
    ) -> None: ...

    @property
    def floor(self) -> float | None: ...  # its floor as last read, for the results

    def order(self, keys: Iterable[str]) -> tuple[str, ...]: ...

    def shown(
        self,
        fields: Sequence[tuple[str, Shown]],
        last: object | None,
        calls: int,
        earlier: int | None = None,
    ) -> DisciplineState: ...  # `earlier`: the last call's step, when the last step made none

    def decision(self, shown: DisciplineState) -> Decision | None: ...  # the last call's why


class Tally(Protocol):
    """Where checks under concurrency count what they checked and what broke (they cannot
    stop the run: `ckviz stress`)."""

    def checked(self, invariant: str) -> None: ...

    def broke(self, invariant: str, detail: str) -> None: ...


class UnderConcurrency(Protocol):
    """A discipline in Redis's own rules under concurrent callers (`ckviz stress`), judged only
    between observations no other call can have reordered: each observer's own dequeue
    reports, and two whole state reads with no enqueue of a key in flight between them."""

    def dequeued(self, observer: str, report: DequeueReport, tally: Tally) -> None: ...

    def read(
        self, observer: str, state: object, quiet: Callable[[str], bool], tally: Tally
    ) -> None: ...


class KeepsStateInRedis(Discipline, Protocol):
    """A discipline whose door names a `reads` script: the driver hands it what its dequeue
    reported and what the read found, and it never writes its keys from Python. What a report
    and a state are is its own (its door's reply readers make them)."""

    traced: bool  # its dequeue reports what it looked at: read its state after every trip

    def on_dequeue_report(self, call: DequeueReport) -> None:
        """What a dequeue call reported beyond its runs (passes, floor)."""
        ...

    def on_state_read(self, state: Any) -> None:
        """Its state as read at the end of a trip."""
        ...

    def ledger_check(self, planned: Mapping[str, int], mixed: bool = False) -> LedgerCheck:
        """Its rules for a run of `planned` runs per key (the millisecond clock); `mixed`: in a
        mixed rollout, beside consumers of another discipline (model/lineup.py)."""
        ...

    def on_steps(self, check: bool, mixed: bool = False) -> OnSteps:
        """What the step clock keeps of it between calls (`check`: its rules too; `mixed`:
        in a mixed rollout)."""
        ...

    def under_concurrency(self) -> UnderConcurrency:
        """Its rules under concurrent callers (`ckviz stress`)."""
        ...

    def decision(self) -> Decision | None:
        """The last call's candidates, as its dequeue reported them (the app's "why")."""
        ...

    def upcoming(self, waiting: Waiting, limit: int) -> tuple[str, ...]:
        """The first `limit` keys of `waiting` in the order its next dequeue would look at
        them, as `order` ranks ckIndex (the app's next order: a screenful a frame)."""
        ...


@dataclass(frozen=True, slots=True)
class Listed:
    """A discipline as the registry lists it: how to make one from the scenario's weights and
    the cell's tuning; what it does, in one line (`--help`, the docs' table); why its first
    key wins (the app's decision line and picker); if it has knobs, how a cell's come from the
    treatment (flags), then the scenario, then its defaults; and, when its order lives outside
    ckIndex, what ckIndex is to it (the app's ckIndex pane)."""

    make: Callable[[Weights, Tuning], Discipline]
    summary: str
    rule: str
    knobs: Callable[[Any, Treatment], object] | None = None
    index_note: str = ""  # what ckIndex is to it, when its own order lives elsewhere


def by_priority(active: Sequence[IndexEntry], priority: Callable[[str], float]) -> list[str]:
    """Members sorted by (priority of key, score as read, member): the reference's tie-break."""
    # Members are unique (a sorted set's), so sorting the plain tuples is the same total order
    # without a key function per entry.
    members, keys, scores = columns_of(active)
    ranked = sorted(zip(map(priority, keys), scores, members, strict=True))
    return [member for _, _, member in ranked]


def weight_of(weights: Mapping[str, float], key: str) -> float:
    return weights.get(key, 1.0)
