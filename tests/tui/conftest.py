"""Fixtures for the app tests: one embedded Redis for the session, a fresh namespace per test."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from textual.pilot import Pilot

from ckviz.model.results import RedisInfo
from ckviz.player.lanes import Lockstep
from ckviz.store.server import RedisServer
from ckviz.tui.app import CkvizApp

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
