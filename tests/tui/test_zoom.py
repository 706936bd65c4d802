"""A zoomed pane (z) shows more columns, never fewer (issue 23, item 5)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import press, settle

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]
SIZE = (120, 36)


async def test_a_zoomed_pane_fills_the_screen_with_every_column(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "colon")
        app.screen.query_one(Input).value = "300"
        await press(pilot, "enter")
        await press(pilot, "2", "z")
        table = app.screen.query_one(KeyQueuesPane)
        assert app.screen.maximized is table
        # laid out alone, its width (54fr beside ckIndex) counted 54 screens: 6,480 columns
        assert table.region.width == SIZE[0]
        header = table.plain.splitlines()[0].split()
        assert header == ["key", "queue", "queued", "arrive", "out", "age", "wait", "share/weight"]
        await press(pilot, "z", "1", "z")
        index = app.screen.query_one(CkIndexPane)
        assert app.screen.maximized is index and index.region.width == SIZE[0]
        assert "sfq's order" in index.plain.splitlines()[1]


async def test_a_zoomed_compare_pane_shows_what_the_lane_had_no_room_for(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq", compare_with="baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "space", "space")
        table = app.screen.query(KeyQueuesPane).first()
        assert "arrive" not in table.plain.splitlines()[0]  # compact in its lane
        table.focus()
        await press(pilot, "z")
        assert app.screen.maximized is table and table.region.width == SIZE[0]
        assert "arrive" in table.plain.splitlines()[0]
        await press(pilot, "z")
        assert "arrive" not in table.plain.splitlines()[0]
