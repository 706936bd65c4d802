"""The legend (`l`), served share over time (`h`), sorting the per-key table by a picked
column (`O`, or a click on its header) and the event log narrowed to one kind (`f`): issue
37, item 8."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

import pytest

from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.pickers import Picker
from ckviz.tui.screens.shares import ShareScreen
from ckviz.tui.shares import chart_lines, share_chart
from ckviz.tui.widgets.bars.legend import Legend
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane, sort_value
from tests.tui.conftest import SETTLE_TIMEOUT_S, press, press_n, settle

pytestmark = pytest.mark.slow
MakeApp = Callable[..., CkvizApp]


def footer(app: CkvizApp) -> str:
    return " | ".join(str(w.render()) for w in app.screen.query("ContextFooter > *"))


async def test_l_shows_and_hides_the_legend_of_colours_and_glyphs(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq", compare_with="baseline")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        legend = app.screen.query_one(Legend)
        assert not legend.display or not legend.has_class("-shown")
        assert "l Legend" in footer(app)
        await press(pilot, "l")
        assert legend.has_class("-shown") and legend.region.width > 0
        text = str(legend.render())
        for meaning in ("light-1", "◆ left", "● right", "✖ starved", "▶ dequeue", "⌛ expire"):
            assert meaning in text, meaning
        assert "l No legend" in footer(app)
        await press(pilot, "l")
        assert not legend.has_class("-shown") and legend.region.width == 0
        await pilot.press("q")


async def test_h_charts_each_lanes_served_share_over_time(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq", compare_with="baseline")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await press_n(pilot, 60)
        await press(pilot, "h")
        assert isinstance(app.screen, ShareScreen)
        snapshots = app.screen.snapshots
        assert [s.discipline for s in snapshots] == ["sfq", "baseline"]
        for snap in snapshots:
            chart = share_chart(snap)
            assert chart is not None and sum(chart.served) == snap.dequeued > 0
            for shares, count in zip(chart.slices, chart.served, strict=True):
                assert sum(shares) == pytest.approx(1.0 if count else 0.0)
            served = Counter(e.key for e in snap.events)
            for key, total in zip(chart.keys, chart.totals, strict=False):
                assert total == pytest.approx(served[key] / snap.dequeued)
            drawn = "\n".join(line.plain for line in chart_lines(chart, app.palette))
            assert f"{snap.discipline} · served share" in drawn and "█" in drawn
        shown = str(app.screen.query_one("#shares-text").render())
        assert "sfq · served share" in shown and "baseline · served share" in shown
        await press(pilot, "escape")
        assert not isinstance(app.screen, ShareScreen)
        await pilot.press("q")


async def test_the_share_chart_follows_the_frames_while_it_is_open(make_app: MakeApp) -> None:
    """Issue 37: `h` opened while the run plays (`p`): the chart draws each new frame as it
    arrives, not the one it was opened on."""
    app = make_app("ck_skew", "sfq", compare_with="baseline")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await press_n(pilot, 10)
        await pilot.press("p", "h")
        screen = app.screen
        assert isinstance(screen, ShareScreen)
        opened = [s.dequeued for s in screen.snapshots]
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while [s.dequeued for s in screen.snapshots] <= opened:  # frames come as it plays
            assert time.monotonic() < deadline, "the chart never drew a later frame"
            await pilot.pause(0.05)
        assert app.screen is screen
        drawn = str(screen.query_one("#shares-text").render())
        for snap in screen.snapshots:
            chart = share_chart(snap)
            assert chart is not None
            lines = "\n".join(line.plain for line in chart_lines(chart, app.palette))
            assert lines in drawn
        await press(pilot, "escape", "p")
        await pilot.press("q")


async def test_the_per_key_table_sorts_by_a_picked_column_or_a_clicked_header(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await press_n(pilot, 30)
        queues = app.screen.query_one(KeyQueuesPane)
        await press(pilot, "O")
        picker = app.screen
        assert isinstance(picker, Picker) and "wait" in picker.choices
        picker.dismiss("wait")
        await settle(pilot)
        assert app.player.view.sort_by == "wait" == queues.sort_by
        snap = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        rows = queues.ordered(snap)[2:]  # below the two pinned keys
        waits = [sort_value(row, snap, "wait") for row in rows]
        assert waits == sorted(waits, reverse=True)
        # a click on the `out` header sorts by it
        line, spans = queues._header
        start = next(s for s, _, sort in spans if sort == "out")
        dx = queues.content_region.x - queues.region.x
        dy = queues.content_region.y - queues.region.y - int(queues.scroll_offset.y)
        await pilot.click(KeyQueuesPane, offset=(dx + start + 1, dy + line))
        await settle(pilot)
        assert app.player.view.sort_by == "out" == queues.sort_by
        assert "sorted by out" in str(queues.border_subtitle)
        await pilot.press("q")


async def test_f_narrows_the_event_log_to_one_kind_from_the_whole_run(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await press_n(pilot, 30)
        events = app.screen.query_one(EventLogPane)
        await press(pilot, "f")
        picker = app.screen
        assert isinstance(picker, Picker) and "ack" in picker.choices
        picker.dismiss("ack")
        await settle(pilot)
        assert events.kinds == frozenset({"ack"}) and "ack" in str(events.border_title)
        lines = [line for line in events.plain.splitlines() if line.strip()]
        assert lines and all(" ack " in f" {line} " for line in lines), lines
        snap = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        assert snap.log is not None
        acks = [e for e in snap.log.of_key("heavy") + snap.log.of_key("light-1") if e.kind == "ack"]
        assert acks  # read from the whole log: acks long gone from the last 200 events too
        await press(pilot, "escape")
        assert events.kinds is None
        await pilot.press("q")
