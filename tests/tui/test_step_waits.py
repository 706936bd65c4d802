"""Step scenarios in the app: a key's wait so far counts its oldest queued run's age in steps,
as millisecond scenarios count it in ms (issue 23, item 1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import Input

from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.pickers import Picker
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.compare.wait_compare import WaitComparePane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import press, settle

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]


async def go_to(pilot: Any, step: str) -> None:
    await press(pilot, "colon")
    pilot.app.screen.query_one(Input).value = step
    await press(pilot, "enter")


def line_of(text: str, key: str) -> list[str]:
    return next(ln.split() for ln in text.splitlines() if ln.split()[:1] == [key])


async def test_a_starved_keys_wait_counts_its_queued_runs_in_steps(make_app: MakeApp) -> None:
    # micro_skew at step 200: baseline has served heavy only, the light keys' runs have
    # queued since step 0; vtime has served every light run.
    app = make_app("micro_skew", "vtime", compare_with="baseline")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await go_to(pilot, "200")
        step = app.player.recording.current.times[0]  # type: ignore[union-attr]
        waits = app.screen.query_one(WaitComparePane).plain
        _, vtime_bar, vtime, vtime_out, baseline_bar, baseline, out, mark, ratio = line_of(
            waits, "light0"
        )
        assert (vtime, vtime_out) == ("94", "10")  # ten runs out, their mean wait in steps
        # queued since step 0, none out: as many steps so far as the run has made
        assert (baseline, out, mark) == (str(step), "0", "✖") and step >= 200
        assert len(baseline_bar) > len(vtime_bar)  # the starved key's bar is the longer
        assert float(ratio.removesuffix("x")) > 2
    app = make_app("micro_skew", "baseline")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await go_to(pilot, "200")
        table = app.screen.query_one(KeyQueuesPane).plain
        step = app.player.recording.current.times[0]  # type: ignore[union-attr]
        numbers = [cell for cell in line_of(table, "light0") if cell.isdigit()]
        assert numbers == ["10", "0", "0", str(step), str(step)]  # queued, arrive, out, age, wait
        status = app.screen.query_one(StatusBar).text.plain
        assert f"longest wait light3 {step}" in status


async def test_picking_a_step_scenario_switches_a_discipline_it_does_not_run(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    notes: list[str] = []  # as said (a notification on screen times out under load)
    notify = app.notify

    def noted(message: str, **kwargs: Any) -> None:
        notes.append(message)
        notify(message, **kwargs)

    app.notify = noted  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        picker = app.screen
        assert isinstance(picker, Picker)
        picker.dismiss("micro_skew")
        await settle(pilot)
        assert app.player.error is None and app.player.setup.disciplines == ("vtime",)
        assert any("sfq does not run on it, vtime does" in n for n in notes)
        await press(pilot, "space")
        assert app.player.recording.current.snapshots[0].step == 1  # type: ignore[union-attr]
        await pilot.press("d")  # only what runs on the step clock is offered
        picker = app.screen
        assert isinstance(picker, Picker)
        assert picker.choices == ["baseline", "vtime", "vtime-v17"]
        await press(pilot, "escape")
        await press(pilot, "d")
        app.screen.dismiss("baseline")  # type: ignore[arg-type]
        await settle(pilot)
        await press(pilot, "c")  # compare mode: baseline beside a discipline that runs here
        assert app.player.error is None and app.player.setup.disciplines == ("baseline", "vtime")
