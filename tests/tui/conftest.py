"""Fixtures for the app tests: one embedded Redis for the session, a fresh namespace per test."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from textual.command import Command, CommandInput, CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input

from ckviz.model.results import RedisInfo
from ckviz.player.frames import Frame
from ckviz.player.lanes import Lockstep
from ckviz.store.server import RedisServer
from ckviz.tui.app import CkvizApp
from tests.waiting import eventually

SIZE = (100, 30)
SETTLE_TIMEOUT_S = 20.0


@pytest.fixture(scope="session")
def tui_server(redis_server: RedisServer) -> RedisServer:
    """The session's server (tests/conftest.py): embedded, or CKVIZ_TEST_REDIS_URL's."""
    return redis_server


@pytest.fixture
def tui_client(client: redis.Redis) -> redis.Redis:
    return client


@pytest.fixture
def namespace(prefix: str) -> str:
    """A fresh key prefix; anything a failed test left under it is deleted (never a flush)."""
    return prefix


@pytest.fixture
def make_app(
    tui_server: RedisServer, tui_client: redis.Redis, namespace: str
) -> Iterator[Callable[..., CkvizApp]]:
    """Build apps on the session server in this test's namespace; closed after the test."""
    apps: list[CkvizApp] = []

    def make(scenario: str = "ck_skew", discipline: str = "sfq", **kwargs: Any) -> CkvizApp:
        kwargs.setdefault("redis", RedisInfo(version=tui_server.version, mode=tui_server.mode))
        app = CkvizApp(Lockstep(tui_client, namespace), scenario, discipline, **kwargs)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close_now()


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every driver job has finished and its frame is on screen."""
    app = pilot.app
    assert isinstance(app, CkvizApp)
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while True:
        await app.workers.wait_for_complete()
        await pilot.pause()
        player = app.player
        if not player.busy and (player.recording.current is not None or player.error is not None):
            await pilot.pause()
            return
        if time.monotonic() > deadline:
            raise TimeoutError("the app's driver jobs did not finish")
        await asyncio.sleep(0.01)


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys one by one, letting each one's step finish (as a patient person would)."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def press_n(pilot: Pilot[Any], times: int) -> None:
    """`n` pressed `times` times, as one driver job: every instant recorded as the presses
    record them, the screen drawn once at the last (about 30 ms of CPU a press saved, for a
    test about what the panes show after them rather than about the key; tests of `n` itself
    press it)."""
    app = pilot.app
    assert isinstance(app, CkvizApp)
    app.perform(app.player.advance(instant=True, count=times))
    await settle(pilot)


async def step_n(pilot: Pilot[Any], times: int) -> list[Frame]:
    """`space` pressed `times` times, as one driver job (`press_n`'s, for dequeue rounds): the
    frames it recorded, one a round, each as a press would have recorded it."""
    app = pilot.app
    assert isinstance(app, CkvizApp)
    before = len(app.player.recording.frames)
    app.action_step_many(times)
    await settle(pilot)
    return app.player.recording.frames[before:]


def first_command(screen: object) -> str | None:
    """The command the palette's enter would run now (its top hit, highlighted, every hit
    gathered), if any."""
    if not isinstance(screen, CommandPalette):
        return None
    gathering = CommandPalette._GATHER_COMMANDS_GROUP
    if any(w.group == gathering and not w.is_finished for w in screen.app.workers):
        return None
    hits = screen.query_one(CommandList)
    if hits.highlighted != 0:
        return None
    top = hits.get_option_at_index(0)
    return str(top.hit.text) if isinstance(top, Command) else None


def palette_field(app: Any) -> CommandInput | None:
    """The palette's search field, once the palette is open and its field mounted."""
    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return None
    fields = [f for f in screen.query(CommandInput) if f.is_mounted]
    return fields[0] if fields else None


async def palette(pilot: Pilot[Any], search: str, command: str) -> None:
    """ctrl+p, `search` typed, then enter once its top hit is `command` (the palette gathers
    its hits in a worker of its own: enter before they land would pick an earlier search's)."""
    await press(pilot, "ctrl+p")
    field = await eventually(lambda: palette_field(pilot.app), "the palette's field")
    assert field is not None  # eventually gives only a truthy value
    field.value = search
    await eventually(
        lambda: first_command(pilot.app.screen) == command, f"the palette to offer {command!r}"
    )
    await press(pilot, "enter")


async def noted(app: CkvizApp, text: str, severity: str | None = None) -> str:
    """The first notification saying `text` (of `severity`, if given), waited for: a driver
    job's or an export's note comes after the frame it tells of."""

    def saying() -> str | None:
        for note in app._notifications:
            if text in note.message and severity in (None, note.severity):
                return note.message
        return None

    said = await eventually(saying, f"a notification saying {text!r}")
    assert said is not None  # eventually gives only a truthy value
    return said


def field_shown(app: Any) -> Input | None:
    """The one field of the prompt or picker on screen, once it is mounted."""
    fields = [f for f in app.screen.query(Input) if f.is_mounted]
    return fields[0] if len(fields) == 1 else None


async def type_into(pilot: Pilot[Any], text: str) -> None:
    """`text` in the prompt's or picker's field (set whole: the field is Textual's, and each
    keystroke would draw the screen again), then enter."""
    field = await eventually(lambda: field_shown(pilot.app), "a field to type into")
    assert field is not None  # eventually gives only a truthy value
    field.value = text
    await press(pilot, "enter")
