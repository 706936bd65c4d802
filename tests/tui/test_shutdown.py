"""A frame that lands while the app shuts down (a driver job's, a play tick's, a watch's
refresh) draws nothing: the screens' widgets are being removed by then (a status bar already
gone: NoMatches, seen once as the app quit while playing in compare mode)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
from textual import events
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from ckviz.live.discover import find_queues
from ckviz.player.frames import Frame
from ckviz.tui.app import CkvizApp
from ckviz.tui.messages import Stepped
from ckviz.tui.screens.lane_screen import LaneScreen
from ckviz.tui.screens.watch import WatchScreen
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.bars.watch_status import WatchStatus
from tests.tui.conftest import SIZE, press, settle
from tests.tui.test_watch import fill, idle, until, watch_app

MakeApp = Callable[..., CkvizApp]
Hook = Callable[[Message], None]


def frame_lands_as_the_screen_closes(
    app: App[int], screen_kind: type[Screen[object]], bar: type[Widget], frame: Callable[[], Frame]
) -> tuple[Hook, list[Screen[object]]]:
    """A message hook: once the screen's status bar is removed and the rest of its widgets
    are going (an unmount while the screen is still on the stack), a frame lands, as a
    driver job's or a refresh's can while the app quits; and where it landed."""
    landed: list[Screen[object]] = []

    def hook(message: Message) -> None:
        if landed or not isinstance(message, events.Unmount) or not app.screen_stack:
            return
        screen = app.screen
        if isinstance(screen, screen_kind) and not screen.query(bar):
            landed.append(screen)
            app.post_message(Stepped((frame(),)))

    return hook, landed


@pytest.mark.parametrize("compare_with", [None, "baseline"], ids=["single", "compare"])
async def test_a_frame_landing_as_the_screens_close_draws_nothing(
    make_app: MakeApp, compare_with: str | None
) -> None:
    app = make_app("ck_skew", "sfq", compare_with=compare_with)

    def shown() -> Frame:
        current = app.player.recording.current
        assert current is not None
        return current

    hook, landed = frame_lands_as_the_screen_closes(app, LaneScreen, StatusBar, shown)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await settle(pilot)
        await press(pilot, "n")
    assert landed  # the frame landed in the window (an error drawing it fails the test)


async def test_a_refresh_landing_as_the_watch_closes_draws_nothing(
    client: redis.Redis, prefix: str
) -> None:
    fill(client, prefix)
    app = watch_app(client, find_queues([("here", client)], prefix))

    def shown() -> Frame:
        current = app.tape.recording.current if app.tape is not None else None
        assert current is not None
        return current

    hook, landed = frame_lands_as_the_screen_closes(app, WatchScreen, WatchStatus, shown)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await until(pilot, lambda: idle(app))
    assert landed
