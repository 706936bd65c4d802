"""Smaller things of issue 23 (item 7): presses typed faster than the lanes step."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from textual import events

from ckviz.player import pace
from ckviz.player.frames import Frame
from ckviz.player.lanes import Lockstep
from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.pane import panes_in
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from tests.tui.conftest import SIZE, noted, settle
from tests.waiting import eventually

pytestmark = pytest.mark.slow

HELD_S = 10.0


class HeldFirstStep(Lockstep):
    """Lanes whose first step waits until the test lets it go."""

    def __init__(self, client: redis.Redis, namespace: str) -> None:
        super().__init__(client, namespace)
        self.go = threading.Event()

    def advance(self, instant: bool, count: int = 1) -> list[Frame]:
        self.go.wait(HELD_S)
        return super().advance(instant, count)


def _asked(app: CkvizApp) -> int:
    """Steps asked for and not landed: the jobs in flight, and those added up behind them."""
    player = app.player
    return player.in_flight + (player.coalesced[1] if player.coalesced else 0)


PLAYING = re.compile(r"▶ playing ([\d.]+) instants/s \(533.3 asked\)")


async def test_presses_beyond_the_queue_are_added_up_not_dropped(
    tui_client: redis.Redis, namespace: str
) -> None:
    lanes = HeldFirstStep(tui_client, namespace)
    app = CkvizApp(lanes, "ck_skew", "sfq")
    bells: list[None] = []
    app.bell = lambda: bells.append(None)  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press(*["space"] * 20)  # while the first step is held
            await eventually(
                lambda: _asked(app) == 20, "the 20 steps asked for, as jobs or added up"
            )
            lanes.go.set()
            await settle(pilot)
            frame = app.player.recording.current
            assert frame is not None and frame.snapshots[0].step == 20
            assert bells == []  # before: 12 bells, and 8 rounds
            await pilot.press("q")
    finally:
        app.close_now()


async def test_a_pane_number_then_z_typed_fast_zooms_that_pane(
    tui_client: redis.Redis, namespace: str
) -> None:
    app = CkvizApp(Lockstep(tui_client, namespace), "ck_skew", "sfq")
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await pilot.press("2")
            await settle(pilot)
            for key in "4z":  # both in the queue before either is handled
                app.post_message(events.Key(key, key))
            await settle(pilot)
            assert app.screen.maximized is panes_in(app.screen)[3]
            await pilot.press("q")
    finally:
        app.close_now()


class SlowSteps(Lockstep):
    """Lanes taking an eighth of a second a step, as a large run does, on a clock of their own
    that play's pace reads: the test waits on no real time, and the speed made is exact. After
    a few steps they hold until the test lets them go: stepping costs no real time, so play
    would otherwise reach the run's end before the status line is read."""

    STEP_S = 0.125  # a binary fraction: instants over elapsed comes out exact
    FREE_STEPS = 8  # enough ticks for play to have a pace to say

    def __init__(self, client: redis.Redis, namespace: str) -> None:
        super().__init__(client, namespace)
        self.now = 0.0
        self.steps = 0
        self.go = threading.Event()

    def monotonic(self) -> float:
        return self.now

    def advance(self, instant: bool, count: int = 1) -> list[Frame]:
        self.steps += 1
        if self.steps > self.FREE_STEPS:
            self.go.wait(HELD_S)
        self.now += self.STEP_S
        return super().advance(instant, count)


async def test_play_says_the_speed_it_makes_when_the_lanes_are_slower(
    tui_client: redis.Redis, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lanes = SlowSteps(tui_client, namespace)
    monkeypatch.setattr(pace, "time", SimpleNamespace(monotonic=lanes.monotonic))
    app = CkvizApp(lanes, "ck_skew", "baseline")
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await pilot.press("+", "+", "+", "+", "p")  # 533 instants/s asked, then play
            made = await eventually(
                lambda: PLAYING.search(app.screen.query_one(StatusBar).text.plain),
                "the status to say the speed play makes",
            )
            lanes.go.set()
            await pilot.press("p")
            # 16 instants a tick, a tick only once the last one's step is done: 128/s
            assert 0 < float(made.group(1)) <= 16 / SlowSteps.STEP_S
            await pilot.press("q")
    finally:
        lanes.go.set()
        app.close_now()


async def test_x_again_keeps_the_earlier_export(
    tui_client: redis.Redis, namespace: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = CkvizApp(Lockstep(tui_client, namespace), "ck_skew", "sfq")
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await pilot.press("n", "n")
            await settle(pilot)
            step = app.player.recording.current.snapshots[0].step  # type: ignore[union-attr]
            stem = f"ckviz-ck_skew-sfq-round{step}"
            # the same moment twice, the second with a filter in force
            for kept in (stem, f"{stem}-2"):
                await pilot.press("x")
                await settle(pilot)
                await noted(app, f"wrote {kept}.svg")  # once every file is written
                await pilot.press("slash", *"heavy", "enter")
                await settle(pilot)
            for kept in (stem, f"{stem}-2"):
                assert (tmp_path / f"{kept}.svg").exists()
                assert (tmp_path / f"{kept}-events.csv").exists()
            await pilot.press("q")
    finally:
        app.close_now()


async def test_the_go_to_prompt_leaves_the_status_line_and_held_slots_say_no_dangling_in(
    tui_client: redis.Redis, namespace: str
) -> None:
    app = CkvizApp(Lockstep(tui_client, namespace), "ck_skew", "sfq")
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            held = app.screen.query_one(HeldSlotsPane)
            assert held.plain.splitlines()[0].strip() == "0/4 held"  # was "0/4 held · release in"
            await pilot.press("n", "n", "n")
            await settle(pilot)
            assert held.plain.splitlines()[0].strip() == "4/4 held · release in ms"
            await pilot.press("colon")
            await pilot.pause()
            box = app.screen.query_one("#picker")
            assert box.region.y >= 2  # below the two status lines (it was drawn over them)
            await pilot.press("escape", "q")
    finally:
        app.close_now()
