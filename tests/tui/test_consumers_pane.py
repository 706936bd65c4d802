"""Several consumers in the app: the discipline pane shows each one's runs and calls, as the
driver's snapshot has them, and who calls next; with one consumer it shows nothing of it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from tests.tui.conftest import press, press_n, settle

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]
WIDE = (200, 50)  # the discipline pane wide enough for the whole consumers line


def consumers_line(app: CkvizApp) -> str | None:
    text = app.screen.query_one(DisciplinePane).plain
    return next((line for line in text.splitlines() if "consumers" in line), None)


async def test_the_pane_shows_each_consumers_service(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq", consumers=3)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await press_n(pilot, 12)
        frame = app.player.recording.current
        assert frame is not None
        (snap,) = frame.snapshots
        line = consumers_line(app)
        assert line is not None, app.screen.query_one(DisciplinePane).plain
        shown = dict(re.findall(r"(c\d) (\d+/\d+)", line))
        assert shown == {c.name: f"{c.dequeued}/{c.calls}" for c in snap.consumers}
        assert len(shown) == 3 and sum(c.dequeued for c in snap.consumers) == snap.dequeued > 0
        assert f"next {snap.next_consumer}" in line


async def test_one_consumer_shows_no_consumers_line(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n")
        assert consumers_line(app) is None


async def test_a_step_scenario_takes_consumers_too(make_app: MakeApp) -> None:
    app = make_app("micro_skew", "vtime", consumers=2)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await press(pilot, "space", "space", "space")
        frame = app.player.recording.current
        assert frame is not None
        (snap,) = frame.snapshots
        # env limit 1: the first call of step 0 fills it, nobody calls again until an ack
        assert sum(c.calls for c in snap.consumers) == 1 == snap.dequeued
        assert [c.name for c in snap.consumers] == ["c1", "c2"]
        line = consumers_line(app)
        assert line is not None and "c1" in line and "c2" in line
