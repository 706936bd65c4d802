"""Stopping a run to the end (esc) and quitting during one (q, ctrl+c, SIGTERM, a closed
terminal): the run stops at once, and quitting deletes every key."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable, Iterator

import pytest
import redis

from ckviz.errors import ExitCode
from ckviz.player.frames import Frame
from ckviz.player.lanes import Lane, Lockstep
from ckviz.player.progress import Heard
from ckviz.store.prefix import keys_under
from ckviz.tui.app import CkvizApp
from tests.tui.conftest import SIZE, settle
from tests.waiting import eventually

MakeApp = Callable[..., CkvizApp]
HELD_S = 10.0  # the longest the driver waits for the test at its gate (a failing test's bound)


class Gated(Lockstep):
    """Lanes whose run to the end waits at a gate after a few instants (the test presses a key
    there), then counts the instants stepped after it."""

    def __init__(self, client: redis.Redis, namespace: str, gate_at: int = 3) -> None:
        super().__init__(client, namespace)
        self.gate_at = gate_at
        self.running = False
        self.at_gate = threading.Event()
        self.opened = threading.Event()
        self.instants = 0  # instants asked for during the run to the end
        self.after_gate = 0

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        self.running = True
        try:
            return super().run_to_end(cancelled, closing, heard)
        finally:
            self.running = False

    def _behind(self) -> list[Lane]:
        if self.running:
            self.instants += 1
            if self.instants == self.gate_at:
                self.at_gate.set()
                self.opened.wait(HELD_S)
            elif self.instants > self.gate_at:
                self.after_gate += 1
        return super()._behind()


@pytest.fixture(autouse=True)
def own_signals() -> Iterator[None]:
    """The app installs SIGHUP and SIGCONT handlers (as `ckviz` does); pytest gets its own back."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGHUP, signal.SIGCONT)}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


async def at_the_gate(lanes: Gated) -> None:
    assert await asyncio.to_thread(lanes.at_gate.wait, HELD_S), "the run to the end never began"


async def test_esc_stops_a_run_to_the_end_before_its_next_instant(
    tui_client: redis.Redis, namespace: str
) -> None:
    lanes = Gated(tui_client, namespace)
    app = CkvizApp(lanes, "ck_skew", "sfq")
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("greater_than_sign")
            await at_the_gate(lanes)
            await pilot.press("escape")
            lanes.opened.set()
            await settle(pilot)
            frame = app.player.recording.current
            assert frame is not None and not frame.done
            # asked every 256 instants, the run went on for 254 more
            assert lanes.after_gate == 0
            assert not app.player.running_to_end
    finally:
        app.close_now()


@pytest.mark.parametrize("way", ["q", "ctrl+c", "SIGTERM", "SIGHUP"])
async def test_quitting_during_a_run_to_the_end_stops_it_and_deletes_every_key(
    tui_client: redis.Redis, namespace: str, way: str
) -> None:
    lanes = Gated(tui_client, namespace)
    app = CkvizApp(lanes, "ck_skew", "sfq", handle_signals=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("greater_than_sign")
            await at_the_gate(lanes)
            assert list(keys_under(tui_client, namespace))
            pressed = None
            if way.startswith("SIG"):  # a closed terminal sends SIGHUP
                os.kill(os.getpid(), getattr(signal, way))
            else:  # not awaited: quitting waits for the driver thread, held at the gate
                pressed = asyncio.create_task(pilot.press(way))
            await eventually(lambda: app.player.closed, f"{way} to reach the app")
            lanes.opened.set()
            await eventually(lambda: app.return_code is not None, "the app to exit", HELD_S)
            if pressed is not None:
                await pressed
        assert app.return_value == ExitCode.OK
        assert lanes.after_gate == 0
        assert list(keys_under(tui_client, namespace)) == []
    finally:
        app.close_now()
