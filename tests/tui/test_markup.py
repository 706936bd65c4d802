"""Issue 20 item 9: whatever a user typed or named is shown as text, never read as markup: a
`/` filter of `[/` and keys named `[/]` and `[b]BIG[/b]` show as typed and crash nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import SIZE, press, press_n, settle

MakeApp = Callable[..., CkvizApp]

SCENARIO = """
env_limit = 1
[[keys]]
name = "[/]"
runs = 20
arrival = "immediate"
[[keys]]
name = "[b]BIG[/b]"
runs = 20
arrival = "immediate"
"""


async def test_a_filter_typed_as_markup_is_shown_as_typed(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", "left_square_bracket", "slash")
        await settle(pilot)
        assert app.player.view.key_filter.query == "[/"
        assert "/[/" in str(app.screen.query_one(KeyQueuesPane).border_subtitle)
        await pilot.press("enter")
        await press(pilot, "n")
        await pilot.press("q")
    assert app.return_code in (0, None)


@pytest.mark.slow
async def test_keys_named_as_markup_are_shown_as_named(make_app: MakeApp, tmp_path: Path) -> None:
    scenario = tmp_path / "markup.toml"
    scenario.write_text(SCENARIO)
    app = make_app(str(scenario), "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_n(pilot, 6)
        shown = (
            app.screen.query_one(KeyQueuesPane).plain + app.screen.query_one(HeldSlotsPane).plain
        )
        assert "[b]BIG[/b]" in shown and "[/]" in shown
        await pilot.press("slash", "left_square_bracket", "b")
        await settle(pilot)
        await pilot.press("enter")
        await press(pilot, "n")
        await pilot.press("q")
    assert app.return_code in (0, None)


@pytest.mark.slow
async def test_a_path_typed_as_markup_is_notified_as_typed(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        keys = {"[": "left_square_bracket", "]": "right_square_bracket", "/": "slash"}
        await pilot.press("ctrl+o", *(keys.get(c, c) for c in "[b]x[/b]"), "enter")
        await settle(pilot)
        (said,) = app._notifications  # shown as typed: the toast does not read markup
        assert said.message.startswith("[b]x[/b]: ") and said.markup is False
        await pilot.press("q")
    assert app.return_code in (0, None)
