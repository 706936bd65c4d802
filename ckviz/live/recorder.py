"""What a capture learns of each run from successive reads of its variant (SPEC-live 5): when
it arrived (its score: exact), when it was seen held and seen gone (to the reads' precision),
its attempts, and what became of it. Pure bookkeeping: the reads are the caller's."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

Place = Literal["queued", "held", "gone"]
Outcome = Literal["acked", "dead", "expired", "removed", "open"]


@dataclass(slots=True)
class SeenRun:
    """One run as the capture saw it. Times are epoch ms."""

    key: str
    arrival_ms: int
    place: Place
    delay_ms: int = 0
    ttl_ms: int | None = None
    held_since: float | None = None  # when this attempt was first seen held
    holds: list[float] = field(default_factory=list)  # measured, one per attempt ended
    outcome: Outcome | None = None
    score: int = 0  # its score when last seen queued
    before_start: bool = False  # queued or held when the capture began
    in_part: bool = False  # seen only held, or only queued then gone: a time not measured
    # Retries, counted two ways that may each miss some: nacks seen (held, then queued again)
    # and the message's `attempt` above what it said at the first read (`first_attempt`).
    # Either can see a nack before the other (the message is read on a trip of its own), so
    # the count is the larger, never the sum.
    nacks_seen: int = 0
    first_attempt: int | None = None
    retries_told: int = 0

    @property
    def attempts(self) -> int:
        return 1 + max(self.nacks_seen, self.retries_told)


@dataclass(slots=True)
class Left:
    """A run that left its variant between two reads, for the caller to resolve: acked,
    dead-lettered, expired or removed (its message and the dead-letter zset tell)."""

    run_id: str
    was_held: bool


class Recorder:
    """Every run seen, and what each read of a variant changed."""

    def __init__(self, notices: bool = False) -> None:
        self.notices = notices  # each change is read as it is named: a run first seen held
        # was dequeued then (with polling, at some time since the last poll)
        self.runs: dict[str, SeenRun] = {}
        self.by_key: dict[str, set[str]] = {}  # key -> its runs queued or held
        self.unsure_arrivals: set[str] = set()  # seen first held: arrival from the message
        # runs seen queued at two reads under another score: served and queued again between
        # them (a nack), their message's attempt to be read (attempt_read)
        self.requeued: set[str] = set()

    def observe(
        self,
        key: str,
        queued: Iterable[tuple[str, int]],
        held: set[str],
        t_ms: float,
        start: bool = False,
        seen_ms: float | None = None,
    ) -> list[Left]:
        """One read of variant `key` at `t_ms` (as it began; `seen_ms`: once it had seen the
        variant, by when a score was no future one): its queued runs (id, score), held ids."""
        mine = self.by_key.setdefault(key, set())
        now_there: set[str] = set()
        past = math.ceil(t_ms if seen_ms is None else seen_ms)
        for rid, score in queued:
            now_there.add(rid)
            self._queued(key, rid, score, t_ms, start, past)
        for rid in held:
            now_there.add(rid)
            self._held(key, rid, t_ms, start)
        left = [Left(rid, self.runs[rid].place == "held") for rid in mine - now_there]
        self.by_key[key] = now_there
        return left

    def _queued(self, key: str, rid: str, score: int, t_ms: float, start: bool, past: int) -> None:
        run = self.runs.get(rid)
        if run is None:
            # a score past the read's stamp, but not past when it saw the variant, is a run
            # enqueued while the read ran, not a delayed one
            delay = max(0, score - int(t_ms)) if not start and score > past else 0
            arrival = score - delay  # a future score: a delayed run, seen as it was enqueued
            self.runs[rid] = SeenRun(
                key, arrival, "queued", delay_ms=delay, before_start=start, score=score
            )
            return
        if run.place == "queued" and score != run.score:
            self.requeued.add(rid)
        run.score = score
        if run.place == "held":  # a nack: queued again for its next attempt
            self._end_hold(run, t_ms)
            run.nacks_seen += 1
            run.place = "queued"

    def _held(self, key: str, rid: str, t_ms: float, start: bool) -> None:
        run = self.runs.get(rid)
        if run is None:  # dequeued before any read saw it queued
            self.runs[rid] = SeenRun(key, int(t_ms), "held", held_since=t_ms, before_start=start)
            self.runs[rid].in_part = not start and not self.notices
            self.unsure_arrivals.add(rid)
        elif run.place == "queued":
            run.place = "held"
            run.held_since = t_ms

    def _end_hold(self, run: SeenRun, t_ms: float) -> None:
        if run.held_since is not None:
            run.holds.append(t_ms - run.held_since)
        run.held_since = None

    def arrived_at(self, rid: str, timestamp: int | None, ttl_ms: int | None = None) -> None:
        """A run's message was read: its timestamp is its arrival, its TTL its ttl_ms."""
        run = self.runs.get(rid)
        if run is None:
            return
        if timestamp is not None and rid in self.unsure_arrivals:
            run.arrival_ms = timestamp
        if ttl_ms is not None and ttl_ms > 0:
            run.ttl_ms = ttl_ms

    def attempt_read(self, rid: str, attempt: int, t_ms: float) -> None:
        """A run's message says `attempt`. Above what it said when last read, the run was
        retried unseen: dequeued and nacked between two reads (held again, or queued again
        under its retry's score; a retry due sooner than the reads' gap, or a read slowed by a
        loaded machine). Its ended hold was not measured; a new one is taken from here."""
        run = self.runs.get(rid)
        if run is None:
            return
        if run.first_attempt is None:
            # a run that arrived while the capture ran began at attempt 0: above it, it was
            # retried before any read saw it; one queued or held at the start began before
            run.first_attempt = attempt if run.before_start else 0
            if attempt > 0 and not run.before_start:
                self._first_seen_retried(rid, run)
        told = attempt - run.first_attempt
        if told > max(run.nacks_seen, run.retries_told):  # a retry no read saw
            run.in_part = True  # the ended attempt's hold was not measured
            if run.place == "held":
                run.held_since = t_ms  # this attempt's, from here
        run.retries_told = max(run.retries_told, told)

    def take_requeued(self) -> set[str]:
        """The runs seen queued again under another score since the last call."""
        taken, self.requeued = self.requeued, set()
        return taken

    def _first_seen_retried(self, rid: str, run: SeenRun) -> None:
        """First seen on a later attempt (its earlier ones between two reads): its score
        is its retry's, so its arrival is its message's timestamp, read next."""
        run.delay_ms = 0
        run.in_part = True
        self.unsure_arrivals.add(rid)

    def gone(self, rid: str, t_ms: float, outcome: Outcome) -> None:
        """A run that left its variant: how (resolved by the caller), at `t_ms`."""
        run = self.runs[rid]
        if run.place == "queued" and outcome == "removed":
            run.in_part = True  # served between two reads, or deleted: no hold measured
        self._end_hold(run, t_ms)
        run.place = "gone"
        run.outcome = outcome

    def close(self, t_ms: float) -> None:
        """The capture ends: runs still queued or held are `open`, their holds cut here."""
        for run in self.runs.values():
            if run.place != "gone":
                self._end_hold(run, t_ms)
                run.outcome = "open"

    def counts(self) -> dict[str, int]:
        tally: dict[str, int] = {"runs": len(self.runs), "before_start": 0, "in_part": 0}
        for run in self.runs.values():
            tally["before_start"] += run.before_start
            tally["in_part"] += run.in_part
            if run.outcome is not None:
                tally[run.outcome] = tally.get(run.outcome, 0) + 1
            tally["retried"] = tally.get("retried", 0) + (run.attempts > 1)
        return tally


TRACE_COLUMNS = (
    "key",
    "arrival_ms",
    "hold_ms",
    "run_id",
    "delay_ms",
    "ttl_ms",
    "attempts",
    "outcome",
)


def trace_rows(recorder: Recorder, unknown_hold_ms: float) -> Iterator[tuple[str, ...]]:
    """One row per run in arrival order: arrival in ms since the first arrival (exact), the
    mean of its measured holds (`unknown_hold_ms` when none was measured: a run served
    between two reads), its attempts when it was retried, and its outcome."""
    runs = sorted(recorder.runs.items(), key=lambda item: (item[1].arrival_ms, item[0]))
    first = runs[0][1].arrival_ms if runs else 0
    for rid, run in runs:
        hold = sum(run.holds) / len(run.holds) if run.holds else unknown_hold_ms
        yield (
            run.key,
            str(run.arrival_ms - first),
            str(max(1, round(hold))),
            rid,
            str(run.delay_ms) if run.delay_ms else "",
            str(run.ttl_ms) if run.ttl_ms else "",
            str(run.attempts) if run.attempts > 1 or run.outcome == "dead" else "",
            run.outcome or "",
        )
