"""A ✖ marks a starved key as the verdict means it (fairness.STARVED_MEANS: owed 3 or more
dequeues and got none), in one lane and in compare mode alike (issue 37 items 3 and 4): no
mark on a key not owed enough to judge, and the status line marks the under-served key its
attainment 0 calls starved."""

from __future__ import annotations

from collections.abc import Callable

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.compare.wait_compare import STARVED, WaitComparePane
from tests.tui.conftest import SIZE, press, settle

MakeApp = Callable[..., CkvizApp]


def marked(pane: WaitComparePane) -> set[str]:
    return {line.split()[0] for line in pane.plain.splitlines()[1:] if STARVED in line}


async def test_compare_mode_marks_only_the_keys_the_verdict_calls_starved(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "c")
        seen_early = False
        for _ in range(12):
            await press(pilot, "n")
            frame = app.player.recording.current
            assert frame is not None
            pane = app.screen.query_one(WaitComparePane)
            starved = set().union(*(f.starved for f in frame.fairness))
            assert marked(pane) <= starved  # no ✖ the verdict does not back
            seen_early |= all(f.attainment is None for f in frame.fairness)
        assert seen_early  # frames too early to judge were looked at: no ✖ on them
        await pilot.press("q")


async def test_one_lane_marks_a_starved_under_served_key_on_the_status_line(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(40):
            await press(pilot, "n")
            frame = app.player.recording.current
            assert frame is not None
            fairness = frame.fairness[0]
            if fairness.attainment == 0:
                break
        assert fairness.attainment == 0 and fairness.underserved in fairness.starved
        status = app.screen.query_one(StatusBar).text.plain
        assert f"{fairness.underserved} {STARVED}" in status or f"{STARVED} starved" in status
        await pilot.press("q")
