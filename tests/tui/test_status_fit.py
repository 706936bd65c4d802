"""The status line's two lines fit the width by priority: the least telling parts go (or
shorten) first, the fairness verdict last, never a word cut in two (issue 23 item 7)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from rich.cells import cell_len
from rich.text import Text

from ckviz.fairness_so_far import SoFar
from ckviz.model.history import Trend
from ckviz.player.frames import Frame
from ckviz.tui.app import CkvizApp
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import Part, fitted
from ckviz.tui.widgets.bars.status import Controls, StatusBar
from tests.tui.conftest import press, settle, step_n
from tests.tui.test_pictures import compare_frame

MakeApp = Callable[..., CkvizApp]


def fits(bar: StatusBar) -> list[str]:
    lines = bar.text.plain.split("\n")
    assert len(lines) == 2, lines
    for line in lines:
        assert cell_len(line) <= bar.size.width, (line, bar.size.width)
        assert "…" not in line, line  # nothing cut: the parts chosen fit whole
    return lines


@pytest.mark.slow
async def test_the_status_lines_fit_80_columns_by_priority(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await step_n(pilot, 30)
        bar = app.screen.query_one(StatusBar)
        top, bottom = fits(bar)
        assert top.startswith(" ck_skew") and " sfq " in top and "t=" in top, top
        assert bottom.startswith(" paused") and "under-served heavy" in bottom, bottom
        await press(pilot, ">")
        top, bottom = fits(bar)
        assert bottom.startswith(" ■ done") and "under-served" in bottom, bottom


def test_a_part_that_cannot_go_ends_at_a_word() -> None:
    parts = [Part(0, Text(" ✖ the scenario file names an unknown discipline")), Part(1, Text(" x"))]
    assert fitted(parts, 30).plain == " ✖ the scenario file names an…"  # 30 cells
    assert fitted(parts, 29).plain == " ✖ the scenario file names…"
    assert fitted(parts, None).plain.endswith("discipline x")


def ranked_at(width: int | None) -> str:
    """The bottom line of a baseline frame whose light-1 is starved, fitted to `width`."""
    frame = compare_frame()
    trend = Trend(0, (1.0, 0.9, 0.7, 0.5, 0.4, 0.2, 0.1, 0.0), (1.0,) * 4 + (0.6,) * 4)
    frame = Frame(
        replace(frame.setup, disciplines=("baseline",)),
        frame.snapshots[:1],
        (SoFar("light-1", 0.0, 0.2),),
        (trend,),
    )
    palette = KeyPalette(["heavy", "light-1"], ["#ff0000", "#00ff00"])
    controls = Controls(instants_per_s=8.3)  # the app's default speed
    return StatusBar.render_frame(frame, controls, palette, width).plain.split("\n")[1]


def test_the_fairness_verdict_goes_last_and_its_sparkline_stays_at_140_columns() -> None:
    whole = ranked_at(None)
    assert "most under-served light-1 0.00 of its share ██▆▅▄▂▁▁ · Jain 0.20 ████▅▅▅▅" in whole
    assert whole.endswith("· longest wait light-4 500ms") and cell_len(whole) > 140
    at_140 = ranked_at(140)  # Jain's sparkline goes first, the verdict's stays
    assert "of its share ██▆▅▄▂▁▁ · Jain 0.20 · longest wait light-4 500ms" in at_140, at_140
    at_130 = ranked_at(130)  # then the verdict's sparkline, before the longest wait
    assert "light-1 0.00 of its share · Jain 0.20 · longest wait light-4" in at_130, at_130
    at_100 = ranked_at(100)  # then the long words, Jain
    assert at_100.endswith(
        "8.3 instants/s  │ under-served light-1 0.00 · longest wait light-4 500ms"
    )
    at_80 = ranked_at(80)  # then the longest wait
    assert at_80.endswith("8.3 instants/s  │ under-served light-1 0.00"), at_80
    assert ranked_at(50) == " paused  │ under-served light-1 0.00"  # then the play speed
    for width in (140, 130, 100, 80, 50):
        line = ranked_at(width)
        assert cell_len(line) <= width and "…" not in line, line
