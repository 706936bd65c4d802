"""A step renders again only the pane rows that changed: what the screen shows is still every
row as the pane draws it now, never a row of an earlier step."""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Region

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.pane import Pane, panes_in
from tests.tui.conftest import SIZE, press, settle

MakeApp = Callable[..., CkvizApp]


def stale_rows(pane: Pane) -> list[tuple[str, str]]:
    """(shown, drawn) for each row on screen whose rendered line lacks the row's text."""
    lines = [strip.text for strip in pane.render_lines(Region(0, 0, *pane.outer_size))]
    top, left = pane.content_offset.y, pane.content_offset.x
    width, scroll = pane.scrollable_content_region.width, int(pane.scroll_offset.y)
    stale = []
    for y in range(pane.text_height):
        index = y + scroll
        drawn = pane.rows[index].plain[:width].rstrip() if index < len(pane.rows) else ""
        shown = lines[top + y][left : left + width].rstrip()
        if shown != drawn:
            stale.append((shown, drawn))
    return stale


async def test_every_step_shows_each_panes_rows_as_drawn_now(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(15):
            await press(pilot, "space")
            panes = panes_in(app.screen)
            assert len(panes) >= 5
            for pane in panes:
                assert stale_rows(pane) == [], type(pane).__name__
