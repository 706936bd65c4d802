"""A lane source that hands out frames made in the test: the app and the player with no Redis
(as memray's TUI tests feed its app snapshots made by hand)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ckviz.fairness_so_far import SoFar
from ckviz.inputs import scenario_files
from ckviz.model.queue import DisciplineState, IndexEntry
from ckviz.model.snapshot import EventLog, HeldRun, KeyRow, Snapshot, ViewRequest
from ckviz.player.frames import Frame, Setup
from ckviz.player.progress import Heard
from ckviz.store.keys import ck_member

BASE = 1_700_000_000_000


class HandMade:
    """A lane source that hands out frames made in the test, one per step."""

    def __init__(self, *frames: Frame) -> None:
        self.frames = list(frames)
        self.closed = 0
        self.views: list[ViewRequest] = []  # what the app asked each frame to carry

    def start(self, setup: Setup) -> list[Frame]:
        return [replace(self.frames.pop(0), setup=setup)]

    def advance(self, instant: bool, count: int = 1) -> list[Frame]:
        return [self.frames.pop(0)] if self.frames else []

    def close(self) -> None:
        self.closed += 1

    def set_view(self, view: ViewRequest) -> None:
        self.views.append(view)

    def reframe(self) -> list[Frame]:
        return []  # made by hand: nothing to make again

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        last, self.frames = self.frames[-1:], []
        return last


def snapshot(keys: tuple[str, ...], held: int, step: int, total_cap: int | None = 2) -> Snapshot:
    index = tuple(IndexEntry(ck_member(k), k, float(BASE + i)) for i, k in enumerate(keys))
    return Snapshot(
        scenario="ck_skew",
        seed="seed-a",
        discipline="baseline",
        step=step,
        t=10 * step,
        done=False,
        env_limit=4,
        max_count=1,
        per_key_cap=None,
        total_cap=total_cap,
        total_runs=40,
        index_read=index,
        index_rescored=(),
        keys=tuple(KeyRow(k, 1.0, 3, 0, 1, 0, float(BASE), 0) for k in keys),
        held=tuple(HeldRun(keys[0], f"{keys[0]}~0#{i}", 100) for i in range(held)),
        order=keys,
        next_order=keys,
        rescores=False,
        discipline_state=DisciplineState("baseline", (("order", "oldest head first (age)"),)),
        events=EventLog([], 0),
        recent=(),
        round_trips=step,
        score_base=BASE,
    )


def frame(keys: tuple[str, ...], held: int, step: int) -> Frame:
    setup = Setup(scenario_files.load("ck_skew"), "seed-a", ("baseline",))
    return Frame(setup, (snapshot(keys, held, step),), (SoFar(),))
