"""A long move's progress (`>`, `:`, `u`; issue 37 item 6): the lanes' time, the runs out, the
rate and an ETA on the status line while it runs, drawn again as the driver moves on; esc stops
it; and the frames it keeps on the way are the scrubber's afterwards."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from textual.pilot import Pilot

from ckviz.inputs import scenario_files
from ckviz.player.frames import Frame, Setup
from ckviz.player.jumps import go_to, until_served
from ckviz.player.lanes import Lockstep
from ckviz.player.progress import Heard, MoveProgress, duration
from ckviz.tui.app import CkvizApp
from ckviz.tui.palette import KeyPalette
from ckviz.tui.widgets.bars.status import Controls, StatusBar
from tests.tui.conftest import SIZE, settle
from tests.tui.fake_source import HandMade, frame


class Clock:
    """Wall seconds the test sets."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_run_to_the_end_says_its_rate_and_when_it_should_end() -> None:
    clock = Clock()
    progress = MoveProgress("end", "running to the end", (10, 4), 1000, clock=clock)
    assert progress.line() == (
        "running to the end · t=10ms · 4/1,000 runs out · … runs/s · ETA … (esc stops)"
    )
    for second in range(1, 11):  # 10 runs and 100 ms of the run each wall second
        clock.now += 1.0
        progress.heard(10 + 100 * second, 4 + 10 * second)
    assert progress.rates() == pytest.approx((10.0, 100.0))
    assert progress.eta() == pytest.approx((1000 - 104) / 10)
    assert progress.line() == (
        "running to the end · t=1,010ms · 104/1,000 runs out · 10.0 runs/s · ETA 1m 30s (esc stops)"
    )


def test_the_rate_is_the_latest_seconds_not_the_whole_move() -> None:
    clock = Clock()
    progress = MoveProgress("end", "running to the end", (0, 0), 10_000, clock=clock)
    for second in range(1, 61):  # a fast first minute...
        clock.now += 1.0
        progress.heard(second, 100 * second)
    for second in range(1, 11):  # ...then one run a second (sfq reaching 10,000 keys queued)
        clock.now += 1.0
        progress.heard(60 + second, 6000 + second)
    rates = progress.rates()
    assert rates is not None and rates[0] == pytest.approx(1.0)


def test_a_go_to_counts_its_eta_in_logical_time_and_until_served_has_none() -> None:
    clock = Clock()
    going = MoveProgress("time", "going to t 5000", (0, 0), 100, target=5000, clock=clock)
    served = MoveProgress("served", "until light-4 is served", (0, 0), 100, clock=clock)
    for second in range(1, 5):
        clock.now += 1.0
        going.heard(250 * second, second)
        served.heard(250 * second, second)
    assert going.eta() == pytest.approx((5000 - 1000) / 250)
    assert served.eta() is None and "ETA" not in served.line()
    steps = MoveProgress("time", "going to step 40", (3, 0), 9, target=40, unit="step")
    assert steps.line().startswith("going to step 40 · step 3 · 0/9 runs out")


def test_durations_read_as_a_person_would_say_them() -> None:
    assert [duration(s) for s in (4.4, 59.6, 245, 7980)] == ["4s", "1m 00s", "4m 05s", "2h 13m"]


class RunsAndTells(HandMade):
    """A run to the end that tells where it is (10 ms of the run every 5 ms of wall time)
    until the app stops it, or 20 s pass."""

    stopped = False

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        t, deadline = 0, time.monotonic() + 20
        while not cancelled() and time.monotonic() < deadline:
            t += 10
            if heard is not None:
                heard(t, t // 10)
            time.sleep(0.005)  # the work of a round
        self.stopped = cancelled()
        return [self.frames.pop(0)]


async def status_shows(pilot: Pilot[Any], wanted: Callable[[str], bool]) -> str:
    """The status line's text once `wanted` holds (the app redraws it on its own timer)."""
    bar = pilot.app.screen.query_one(StatusBar)
    for _ in range(2000):
        text = bar.text.plain
        if wanted(text):
            return text
        await asyncio.sleep(0.01)
    raise AssertionError(f"status never showed it: {bar.text.plain!r}")


def shown_t(text: str) -> int:
    """The progress line's time (`⋯ running to the end · t=1,230ms · ...`)."""
    line = text[text.index("running to the end") :]
    return int(line.split("t=")[1].split("ms")[0].replace(",", ""))


@pytest.mark.slow
async def test_the_progress_line_moves_on_by_itself_and_esc_stops_the_run() -> None:
    keys = ("heavy", "light-0")
    source = RunsAndTells(frame(keys, 0, 1), frame(keys, 0, 5))
    app = CkvizApp(source, "ck_skew", "baseline")
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign")
        first = await status_shows(pilot, lambda text: "runs/s" in text and "t=1" in text)
        assert "running to the end · t=" in first and "runs out" in first
        assert "(esc stops)" in first
        # no key pressed: the app's own timer draws the driver's later readings
        later = await status_shows(pilot, lambda text: shown_t(text) > shown_t(first) + 100)
        assert "ETA" in later
        await pilot.press("escape")
        await settle(pilot)
        assert source.stopped and app.player.progress is None
        assert "running to the end" not in app.screen.query_one(StatusBar).text.plain
        await pilot.press("q")


@pytest.mark.slow
async def test_after_a_run_to_the_end_in_the_app_the_scrubber_has_50_frames_or_more(
    make_app: Callable[..., CkvizApp],
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign")
        await settle(pilot)
        recording = app.player.recording
        assert app.player.done and len(recording.frames) >= 50
        await pilot.press("left_square_bracket")  # a tenth back: not the start of the run
        await settle(pilot)
        shown = recording.current
        assert shown is not None and 0 < min(shown.times) < min(recording.frames[-1].times)
        await pilot.press("q")


@pytest.mark.parametrize("move", ["go to", "until served", "run to the end"])
def test_every_long_move_tells_where_the_lanes_stand_as_it_goes(
    client: redis.Redis, prefix: str, move: str
) -> None:
    lanes = Lockstep(client, prefix)
    told: list[tuple[int, int]] = []
    try:
        setup = Setup(scenario_files.load_any("ck_skew"), "seed-a", ("sfq",), True, None)
        start = lanes.start(setup)[0]
        tell = lambda t, out: told.append((t, out))  # noqa: E731
        if move == "go to":
            last = go_to(lanes, 600, "t", heard=tell).frames[-1]
        elif move == "until served":
            last = until_served(lanes, start, "light-4", False, heard=tell).frames[-1]
        else:
            last = lanes.run_to_end(lambda: False, heard=tell)[-1]
        assert len(told) >= 5 and told == sorted(told)  # time and runs out only go forward
        assert told[-1] == (min(last.times), sum(s.dequeued for s in last.snapshots))
    finally:
        lanes.close()


def test_at_80_columns_the_progress_keeps_its_figures_and_how_to_stop() -> None:
    progress = MoveProgress("end", "running to the end", (0, 0), 22_000, clock=Clock())
    long, short = progress.line(), progress.line(short=True)
    controls = Controls(stepping=True, running_to_end=True, progress=long, progress_short=short)
    shown = frame(("heavy", "light-0"), 0, 1)
    narrow = StatusBar.render_frame(shown, controls, KeyPalette([], []), 80).plain
    wide = StatusBar.render_frame(shown, controls, KeyPalette([], []), 200).plain
    assert "t=0ms · 0/22,000 out · … runs/s · ETA … (esc stops)" in narrow
    assert long in wide
