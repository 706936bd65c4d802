"""Meeting mode (issue 23 item 9): the CDF's lanes told apart by colour and shape, the verdict
banner and a keys over time strip per lane in compare mode, the timeline scrubber and the
bookmarks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from rich.cells import cell_len
from textual.events import MouseMove
from textual.pilot import Pilot

from ckviz.fairness_so_far import SoFar
from ckviz.player.frames import Frame
from ckviz.tui.app import CkvizApp
from ckviz.tui.palette import KeyPalette
from ckviz.tui.verdict import verdict_line
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.compare.wait_cdf import MARKS, WaitCdfPane
from ckviz.tui.widgets.queue.key_strip import KeyStripPane
from tests.tui.conftest import press, press_n, settle
from tests.tui.fake_source import HandMade
from tests.tui.test_pictures import compare_frame

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]
PALETTE = KeyPalette(["heavy", "light-1"], ["#1f77b4", "#ff7f0e"], lanes=("#0000ee", "#aa00aa"))


def judged(left: float | None, right: float | None) -> Frame:
    """compare_frame's lanes (baseline, sfq) judged at these attainments."""
    lanes = (
        SoFar("light-1", left),
        SoFar("light-2", right),
    )
    return replace(compare_frame(), fairness=lanes)


def test_the_banner_says_which_lane_leads_and_by_how_much_in_one_line() -> None:
    line = verdict_line(judged(0.2, 0.9), PALETTE)
    assert line.plain == (
        "verdict: ▶ sfq leads (one sample): its most under-served key gets 90% of its fair share, "
        "baseline's light-1 20% (4.5x)"
    )
    short = verdict_line(judged(0.2, 0.9), PALETTE, 78)  # 80 columns, less the padding
    assert cell_len(short.plain) <= 78 and "\n" not in short.plain
    assert short.plain.startswith("▶ sfq leads") and "(4.5x)" in short.plain
    assert "(got none)" in verdict_line(judged(0.0, 0.9), PALETTE).plain
    assert "baseline and sfq: no difference shown" in verdict_line(judged(0.9, 0.92), PALETTE).plain
    early = verdict_line(judged(None, 0.9), PALETTE).plain
    assert early.startswith("verdict: too early") and early.count("verdict") == 1  # not twice
    # the fairer lane is named in its lane's colour, as in the CDF
    span = next(s for s in line.spans if line.plain[s.start : s.end] == "sfq")
    assert span.style == PALETTE.lane(1)


async def test_the_cdf_tells_the_lanes_apart_by_shape_and_colour() -> None:
    app = CkvizApp(HandMade(compare_frame()), "ck_skew", "baseline", compare_with="sfq")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        cdf = app.screen.query_one(WaitCdfPane)
        palette = app.palette
        assert palette.lane(0).color != palette.lane(1).color
        seen = set()
        for i in range(len(cdf.rows)):
            row = cdf.rows[i]
            for span in row.spans:
                mark = row.plain[span.start : span.end]
                if mark in MARKS:
                    lane = MARKS.index(mark)
                    assert span.style == palette.lane(lane), (mark, span.style)
                    seen.add(lane)
        assert seen == {0, 1}
        await pilot.press("q")


async def test_compare_mode_opens_with_the_banner_and_a_strip_per_lane(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "baseline", compare_with="sfq")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await press_n(pilot, 30)
        frame = app.player.recording.current
        assert frame is not None
        got = [f.attainment for f in frame.fairness]
        assert None not in got and got[0] != got[1]
        fairer = frame.snapshots[0 if got[0] > got[1] else 1].discipline  # type: ignore[operator]
        banner = str(app.screen.query_one("#verdict").render())
        assert f"▶ {fairer} leads" in banner
        strips = list(app.screen.query(KeyStripPane))
        assert len(strips) == 2
        for strip, snap in zip(strips, frame.snapshots, strict=True):
            lines = strip.plain.splitlines()
            assert lines[0].endswith(f"t={snap.t}ms") and strip.region.height >= 3
            assert lines[1].startswith("light-1")  # the scenario's light key, pinned first
        await pilot.press("q")


def shown_t(app: CkvizApp) -> int:
    frame = app.player.recording.current
    assert frame is not None
    return min(frame.times)


async def test_the_scrubber_jumps_a_tenth_of_the_recording_and_to_a_click(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press_n(pilot, 20)
        recording = app.player.recording
        live_t, frames = shown_t(app), len(recording.frames)
        await press(pilot, "left_square_bracket")
        assert recording.cursor == frames - 1 - frames // 10
        status = app.screen.query_one(StatusBar).text.plain
        assert f"replay: frame {recording.cursor + 1} of {frames}" in status
        await press(pilot, "right_square_bracket")
        assert recording.live and shown_t(app) == live_t
        strip = app.screen.query_one(KeyStripPane)
        await pilot.click(KeyStripPane, offset=(strip.region.width // 2, 3))
        await settle(pilot)
        # the middle of the strip's time axis: about half the run so far, a recorded frame
        assert not recording.live and 0.3 * live_t <= shown_t(app) <= 0.7 * live_t
        await pilot.press("q")


def strip_offset(
    strip: KeyStripPane, fraction: float, axis: tuple[int, int, int]
) -> tuple[int, int]:
    """Where on the strip (its own offset, border included) `axis` (the strip's time axis as
    drawn: first cell, cells, t) is at `fraction` of the run, on the first key's row."""
    first, cells, _ = axis
    left = strip.content_region.x - strip.region.x
    top = strip.content_region.y - strip.region.y
    return left + first + round(fraction * (cells - 1)), top + 1


async def move_pointer(
    pilot: Pilot[Any], strip: KeyStripPane, at: tuple[int, int], button: int
) -> None:
    """The pointer moved over the strip to `at`, `button` held (1: a drag; 0: no button),
    posted as the terminal's driver posts it."""
    x, y = strip.region.x + at[0], strip.region.y + at[1]
    pilot.app.post_message(
        MouseMove(strip, x, y, 0, 0, button, False, False, False, screen_x=x, screen_y=y)
    )
    await settle(pilot)


async def test_a_drag_on_the_strip_moves_through_the_recording_with_the_pointer(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press_n(pilot, 20)
        recording, live_t = app.player.recording, shown_t(app)
        strip = app.screen.query_one(KeyStripPane)
        axis = strip._axis_at  # the live run's: the pointer's columns are read on it
        assert axis is not None and axis[2] == live_t
        await pilot.mouse_down(KeyStripPane, offset=strip_offset(strip, 0.2, axis))
        await settle(pilot)
        shown = [shown_t(app)]
        for fraction in (0.5, 0.8):  # dragged right: later moments, recorded frames
            await move_pointer(pilot, strip, strip_offset(strip, fraction, axis), button=1)
            shown.append(shown_t(app))
        assert not recording.live
        assert shown == sorted(set(shown)), shown  # each pointer move went further on
        for fraction, t in zip((0.2, 0.5, 0.8), shown, strict=True):
            assert abs(t - fraction * live_t) <= 0.15 * live_t, (fraction, t, live_t)
        back = strip_offset(strip, 0.4, axis)
        await move_pointer(pilot, strip, back, button=1)  # and back left
        assert shown_t(app) < shown[-1]
        await pilot.mouse_up(KeyStripPane, offset=back)
        moved_to = shown_t(app)
        far = strip_offset(strip, 0.9, axis)
        await move_pointer(pilot, strip, far, button=0)  # no button held
        assert shown_t(app) == moved_to
        await pilot.press("q")


async def test_m_marks_a_moment_and_apostrophe_goes_back_to_each_mark(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press_n(pilot, 5)
        await press(pilot, "m")
        first = shown_t(app)
        await press_n(pilot, 5)
        await press(pilot, "m")
        second = shown_t(app)
        await press_n(pilot, 5)
        assert shown_t(app) > second > first
        await press(pilot, "apostrophe")
        assert shown_t(app) == second
        await press(pilot, "apostrophe")
        assert shown_t(app) == first
        await press(pilot, "apostrophe")  # round and round
        assert shown_t(app) == second
        await pilot.press("q")
