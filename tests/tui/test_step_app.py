"""`ckviz micro_skew --discipline vtime`: the app steps a step-harness scenario call by call,
and the panes show the queues, held slots, the vtime state with each call's passes and the log."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from ckviz.errors import UsageError
from ckviz.player.choice import app_choice
from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.main import MainScreen
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import press, settle

MakeApp = Callable[..., CkvizApp]


def choice(*discipline: str) -> argparse.Namespace:
    return argparse.Namespace(
        scenario_arg="micro_skew", scenario=None, discipline=list(discipline), seeds=None, seed=None
    )


def test_the_app_takes_a_step_scenario_with_a_step_discipline() -> None:
    assert app_choice(choice("vtime"))[:2] == ("micro_skew", "vtime")
    with pytest.raises(UsageError, match="does not run on the step scenario 'micro_skew'"):
        app_choice(choice("sfq"))


def pass_line(pane: str, n: int) -> str:
    return next(ln.strip() for ln in pane.splitlines() if ln.strip().startswith(f"pass {n}:"))


@pytest.mark.slow
async def test_micro_skew_steps_call_by_call_showing_each_calls_passes(
    make_app: MakeApp,
) -> None:
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        served = []
        for _ in range(5):  # env limit 1, hold 3: a serve every 4 calls (SPEC-vtime 7)
            await press(pilot, "n")
            pane = screen.query_one(DisciplinePane).plain
            called = "no call this step" not in pane  # else the passes are an earlier call's
            served.append(called and "served" in pass_line(pane, 1))
            assert called or "earlier: call #1 at step 0, its passes:" in pane, pane
        assert served == [True, False, False, False, True]
        pane = screen.query_one(DisciplinePane).plain
        # the second serve: all tags 0 and ties by name, so heavy then light0 (SPEC-vtime 7)
        assert pass_line(pane, 1).startswith("pass 1: light0 served -> 1")
        assert "heavy 1" in pane and "floor" in pane
        held = screen.query_one(HeldSlotsPane).plain
        assert "light0" in held
        queues = screen.query_one(KeyQueuesPane).plain
        assert "heavy" in queues and "light3" in queues
        log = screen.query_one(EventLogPane).plain
        assert "dequeue light0-0" in log  # the call at step 4
        snap = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        assert snap.step == 5 and [e.key for e in snap.events] == ["heavy", "light0"]
