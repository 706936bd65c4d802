"""A long cell's progress lines (headless/progress.py): none in its first EVERY_S, then at
most one every EVERY_S, saying runs done, logical time, rate and time left."""

from __future__ import annotations

from ckviz.headless.progress import EVERY_S, CellProgress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_come_at_most_every_ten_seconds_and_say_how_far() -> None:
    clock, lines = Clock(), []
    progress = CellProgress("day/baseline/seed-a", 10_000, clock=clock, write=lines.append)
    clock.now += EVERY_S - 0.5
    progress(500, 60_000)
    assert lines == []  # a cell shorter than EVERY_S says nothing
    clock.now += 0.5
    progress(1_000, 3_723_000)
    assert lines == [
        "day/baseline/seed-a: 1,000 of 10,000 runs dequeued, t=1:02:03, 100 runs/s, "
        "about 0:01:30 left"
    ]
    clock.now += EVERY_S - 1
    progress(1_500, 4_000_000)
    assert len(lines) == 1  # not yet due again
    clock.now += 1
    progress(2_000, 4_500_000)
    assert lines[-1].startswith("day/baseline/seed-a: 2,000 of 10,000 runs dequeued, t=1:15:00")


def test_a_step_cell_counts_steps() -> None:
    clock, lines = Clock(), []
    progress = CellProgress("micro/vtime/s", 40, "step", clock=clock, write=lines.append)
    clock.now += EVERY_S
    progress(40, 12_345)
    assert lines == [
        "micro/vtime/s: 40 of 40 runs dequeued, step 12,345, 4 runs/s, about 0:00:00 left"
    ]
