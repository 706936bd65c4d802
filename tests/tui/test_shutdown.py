"""A frame that lands while the app shuts down (a driver job's, a play tick's) draws nothing:
the screens' widgets are being removed by then (a status bar already gone: NoMatches, seen
once as the app quit while playing in compare mode)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events
from textual.message import Message

from ckviz.tui.app import CkvizApp
from ckviz.tui.messages import Stepped
from ckviz.tui.screens.lane_screen import LaneScreen
from ckviz.tui.widgets.bars.status import StatusBar
from tests.tui.conftest import SIZE, press, settle

MakeApp = Callable[..., CkvizApp]


@pytest.mark.parametrize("compare_with", [None, "baseline"], ids=["single", "compare"])
async def test_a_frame_landing_as_the_screens_close_draws_nothing(
    make_app: MakeApp, compare_with: str | None
) -> None:
    app = make_app("ck_skew", "sfq", compare_with=compare_with)
    landed: list[LaneScreen] = []

    def frame_lands_as_the_screen_closes(message: Message) -> None:
        """When the lane screen unmounts (its status bar and panes already removed), a driver
        job's frame lands, as one can while the app quits."""
        if landed or not isinstance(message, events.Unmount) or not app.screen_stack:
            return
        screen = app.screen
        if isinstance(screen, LaneScreen) and not screen.query(StatusBar):
            landed.append(screen)
            frame = app.player.recording.current
            assert frame is not None
            app.post_message(Stepped((frame,)))

    async with app.run_test(size=SIZE, message_hook=frame_lands_as_the_screen_closes) as pilot:
        await settle(pilot)
        await press(pilot, "n")
    assert landed  # the frame landed in the window (an error in drawing it fails the test)
