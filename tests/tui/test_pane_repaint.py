"""A step renders again only the pane rows that changed: what the screen shows is still every
row as the pane draws it now, never a row of an earlier step, and a row that draws as it did
is not rendered again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.pane import Pane, panes_in
from tests.tui.conftest import SIZE, press, settle

pytestmark = pytest.mark.slow

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


def on_screen(pane: Pane) -> dict[int, tuple[str, list[object]]]:
    """The rows on screen, by index: their text and spans."""
    top = int(pane.scroll_offset.y)
    shown = range(top, min(len(pane.rows), top + pane.text_height))
    return {i: (pane.rows[i].plain, list(pane.rows[i].spans)) for i in shown}


async def test_a_step_renders_again_only_the_rows_that_changed(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the other half of the repaint check: a row that draws as it did keeps its rendered line
    renders: Counter[int] = Counter()
    render = Pane._strip

    def counted(pane: Pane, text: Text, style: Style) -> Strip:
        renders[id(pane)] += 1
        return render(pane, text, style)

    monkeypatch.setattr(Pane, "_strip", counted)
    app = make_app("ck_skew", "sfq")
    kept = 0
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(10):
            panes = panes_in(app.screen)
            before = {id(p): (on_screen(p), p.virtual_size, p.text_width) for p in panes}
            renders.clear()
            await press(pilot, "space")
            for pane in panes:
                rows, box, width = before[id(pane)]
                if (pane.virtual_size, pane.text_width) != (box, width):
                    continue  # a new box is rendered whole
                now = on_screen(pane)
                changed = [i for i, row in now.items() if rows.get(i) != row]
                assert renders[id(pane)] == len(changed), type(pane).__name__
                kept += len(now) - len(changed)
    assert kept > 0  # some rows on screen stayed as they were, and were not rendered again
