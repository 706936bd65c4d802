"""A key's own story: each of its runs, when it arrived, when it was dequeued and by whom, how
long it waited, and what ended its hold (ack, nack, dead letter) or its wait (expiry), read
off a frame's snapshot (its whole event log, kept by the app's runs).

Textual-free on purpose (lint-imports keeps Textual out): the app's story view draws it, and
the CSV it exports is made here, so both are tested without a terminal. A live queue's frame
keeps no per-run history: its story says what is known now (runs queued and held).
"""

from __future__ import annotations

import itertools
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ckviz.model.snapshot import DequeueEvent, QueueEvent, Snapshot
from ckviz.outputs.csv_text import csv_text
from ckviz.outputs.writer import check_output, write_output

ENDS = {"ack": "acked", "nack": "nacked", "dead": "dead letter", "expire": "expired"}


@dataclass(frozen=True, slots=True)
class RunStory:
    """One attempt of a run: from its arrival (or a nack's requeue) to what ended it."""

    run_id: str
    attempt: int  # 1, then one more after each nack
    arrived: int | None  # when it was enqueued (None: before the log, e.g. held at the start)
    dequeued: int | None = None  # None: not served (queued, or expired)
    wait: int | None = None  # dequeued - arrival, as the per-key table counts it
    by: str | None = None  # the consumer whose call took it (a mixed rollout's)
    end: str = "queued"  # queued, held, acked, nacked, dead letter, expired
    ended: int | None = None  # when it ended (a held run: when it is due to be released)
    ended_by: str | None = None  # the consumer that acked, nacked or dead-lettered it


@dataclass(frozen=True, slots=True)
class KeyStory:
    """Every run of one key up to a frame's moment, in one lane."""

    key: str
    lane: int
    discipline: str
    unit: str  # "ms" or "step"
    t: int
    runs: tuple[RunStory, ...] = ()
    queued_now: int = 0
    held_now: int = 0
    # what the story cannot tell (None: it tells every run since the start)
    unknown: str | None = None

    @property
    def served(self) -> int:
        return sum(1 for run in self.runs if run.dequeued is not None)


@dataclass(slots=True)
class _Walk:
    """The runs of a key as its events are walked, oldest first."""

    open: dict[str, RunStory] = field(default_factory=dict)  # run id -> its current attempt
    done: list[RunStory] = field(default_factory=list)
    waits: dict[str, deque[DequeueEvent]] = field(default_factory=lambda: defaultdict(deque))

    def event(self, e: QueueEvent) -> None:
        current = self.open.get(e.run_id)
        if e.kind == "enqueue":
            self._close(e.run_id)
            self.open[e.run_id] = RunStory(e.run_id, 1, e.t)
        elif e.kind == "dequeue":
            self._dequeued(e, current)
        elif e.kind == "nack":
            attempt = current.attempt if current is not None else 1
            self._end(e, current)
            self.open[e.run_id] = RunStory(e.run_id, attempt + 1, e.t)
        else:  # ack, dead letter, expiry
            self._end(e, current)

    def _dequeued(self, e: QueueEvent, current: RunStory | None) -> None:
        served = self.waits[e.run_id].popleft() if self.waits[e.run_id] else None
        if current is None:  # held at the start, or enqueued before the log
            arrived = served.arrival_ms if served is not None else None
            current = RunStory(e.run_id, 1, arrived)
        wait = served.wait_ms if served is not None else None
        if wait is None and current.arrived is not None:
            wait = e.t - current.arrived
        self.open[e.run_id] = replace(current, dequeued=e.t, wait=wait, by=e.by, end="held")

    def _end(self, e: QueueEvent, current: RunStory | None) -> None:
        current = current or RunStory(e.run_id, 1, None)
        ended = replace(current, end=ENDS[e.kind], ended=e.t, ended_by=e.by)
        self.done.append(ended)
        self.open.pop(e.run_id, None)

    def _close(self, run_id: str) -> None:
        if run_id in self.open:
            self.done.append(self.open.pop(run_id))


def story_of(snapshot: Snapshot, key: str, lane: int = 0) -> KeyStory:
    """`key`'s runs up to `snapshot`'s moment (its whole log), or what is known now."""
    row = snapshot.rows.get(key)
    base = KeyStory(
        key,
        lane,
        snapshot.discipline,
        snapshot.time_unit,
        snapshot.t,
        queued_now=row.queued if row is not None else 0,
        held_now=sum(1 for run in snapshot.held if run.key == key),
    )
    if snapshot.log is None:
        return replace(base, runs=_held_now(snapshot, key), unknown=_unknown(snapshot))
    walk = _Walk()
    for served in snapshot.events:
        if served.key == key:
            walk.waits[served.run_id].append(served)
    for event in snapshot.log.of_key(key):
        walk.event(event)
    release = {run.run_id: run.release_ms for run in snapshot.held if run.key == key}
    runs = [*walk.done, *walk.open.values()]
    runs = [replace(r, ended=release.get(r.run_id)) if r.end == "held" else r for r in runs]
    runs.sort(key=_when)
    return replace(base, runs=tuple(runs))


def _when(run: RunStory) -> tuple[int, int]:
    start = run.arrived if run.arrived is not None else run.dequeued
    return (start if start is not None else -1, run.attempt)


def _held_now(snapshot: Snapshot, key: str) -> tuple[RunStory, ...]:
    """A frame without a log: the runs of `key` holding a slot now, as it names them."""
    return tuple(
        RunStory(run.run_id, 1, None, end="held", ended=run.release_ms)
        for run in snapshot.held
        if run.key == key
    )


def _unknown(snapshot: Snapshot) -> str:
    if snapshot.decision_ahead:  # a live queue's frame: its read, not a run ckviz made
        return "a live queue: no per-run history is read, only what is queued and held now"
    return "no per-run history is kept for this frame: only what is queued and held now"


STORY_COLUMNS = ("lane", "discipline", "key", "run_id", "attempt", "arrival", "dequeued")
STORY_TAIL = ("wait", "dequeued_by", "end", "ended", "ended_by")
STORY_TIMES = {"arrival", "dequeued", "wait", "ended"}  # these get the unit: `wait_ms`


def story_table(stories: Sequence[KeyStory]) -> list[list[object]]:
    """The stories as one table, header row first (time columns end in `_ms` or `_step`);
    an unknown figure is an empty cell."""
    unit = f"_{stories[0].unit}" if stories else "_ms"
    header: list[object] = [c + unit if c in STORY_TIMES else c for c in STORY_COLUMNS + STORY_TAIL]
    rows: list[list[object]] = [header]
    for story in stories:
        for run in story.runs:
            rows.append(
                [
                    story.lane,
                    story.discipline,
                    story.key,
                    run.run_id,
                    run.attempt,
                    _cell(run.arrived),
                    _cell(run.dequeued),
                    _cell(run.wait),
                    run.by or "",
                    run.end,
                    _cell(run.ended),
                    run.ended_by or "",
                ]
            )
    return rows


def _cell(value: int | None) -> object:
    return "" if value is None else value


def story_csv(stories: Sequence[KeyStory]) -> str:
    """The stories as CSV text, through the one CSV writer (key names are text a spreadsheet
    must not run: ckviz.outputs.csv_text)."""
    return csv_text(story_table(stories))


def story_stem(title: str, stories: Sequence[KeyStory]) -> str:
    """`ckviz-<scenario>-<discipline(s)>-story-<key>-<unit><t>`, safe in a path."""
    first = stories[0]
    lanes = "-vs-".join(story.discipline for story in stories)
    name = f"ckviz-{title}-{lanes}-story-{first.key}-{first.unit}{first.t}"
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def write_story(stories: Sequence[KeyStory], folder: Path, stem: str) -> Path:
    """`<stem>.csv` in `folder` (or `<stem>-2.csv`...: an earlier export is kept), through
    ckviz's one writer; the path written."""
    for n in itertools.count(1):
        path = folder / (f"{stem}.csv" if n == 1 else f"{stem}-{n}.csv")
        if not path.exists():
            break
    write_output(check_output(str(path), "export", force=True), story_csv(stories))
    return path
