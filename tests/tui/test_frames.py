"""Panes fed hand-built frames through an injected lane source: no Redis at all."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rich.cells import cell_len

from ckviz.player.frames import Frame
from ckviz.player.progress import Heard
from ckviz.player.viewing import VIEW_ROWS
from ckviz.tui.app import CkvizApp
from ckviz.tui.text import fit
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import SIZE, press, settle
from tests.tui.fake_source import HandMade, frame
from tests.waiting import within


@pytest.mark.slow
async def test_a_full_total_cap_shows_no_scan_window_and_no_pick() -> None:
    keys = ("heavy", "light-0")
    source = HandMade(frame(keys, 2, 1), frame(keys, 1, 2))
    app = CkvizApp(source, "ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = app.screen.query_one(CkIndexPane).plain.splitlines()
        assert lines[0].rstrip() == "2 entries · scan window 0 (total cap full)"
        # scores above the lowest one, not 13-digit numbers
        assert lines[1].split()[-1] == "+0" and lines[2].split()[-1] == "+1"
        assert not any("▶" in line for line in lines)
        await press(pilot, "space")  # a slot under the cap is free again
        lines = app.screen.query_one(CkIndexPane).plain.splitlines()
        assert lines[0].rstrip() == "2 entries · scan window 3 · ▶ next pick"
        await pilot.press("q")
    assert source.closed


async def test_wide_keys_keep_the_columns() -> None:
    keys = ("日本語のキー", "plain")
    app = CkvizApp(HandMade(frame(keys, 0, 1)), "ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # after the key column, both rows go on at the same cell: keys are measured in cells
        rows = app.screen.query_one(KeyQueuesPane).plain.splitlines()[1:3]
        assert len({cell_len(row[: row.index("█")]) for row in rows}) == 1
        rows = app.screen.query_one(CkIndexPane).plain.splitlines()[1:3]
        assert len({cell_len(row[: row.index(" +")]) for row in rows}) == 1
        await pilot.press("q")


def test_fit_counts_cells() -> None:
    assert cell_len(fit("café-☕", 8)) == 8
    assert cell_len(fit("café-☕", 6)) == 6 and fit("café-☕", 6).endswith("…")
    assert all(cell_len(fit("日本語のキー", w)) == w for w in range(0, 15))


class RunsUntilStopped(HandMade):
    """A run to the end that goes on until the app stops it (or 10 s pass)."""

    stopped = False

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        self.stopped = bool(within(cancelled, 10))
        return [self.frames.pop(0)]


@pytest.mark.slow
async def test_the_app_asks_for_the_rows_it_shows_and_esc_stops_a_run_to_the_end() -> None:
    keys = ("heavy", "light-0")
    source = RunsUntilStopped(frame(keys, 0, 1), frame(keys, 0, 5))
    app = CkvizApp(source, "ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = source.views[-1]  # asked before the first frame: a screenful, not every key
        assert view.limit == VIEW_ROWS and view.index_limit == VIEW_ROWS
        assert view.pinned == ("light-1",) and view.pin_longest_wait and view.sort == "scenario"
        await press(pilot, "o")  # another sort: the live frame is asked for again, so sorted
        assert source.views[-1].sort == "queued" and len(source.views) == 2
        await pilot.press("greater_than_sign")
        await pilot.pause()
        status = app.screen.query_one(StatusBar).text.plain
        assert "│ ⋯ t=" in status and "(esc stops)" in status  # the short progress, 100 columns
        await pilot.press("escape")
        await settle(pilot)
        assert source.stopped and app.player.recording.current.snapshots[0].step == 5  # type: ignore[union-attr]
        await pilot.press("q")
