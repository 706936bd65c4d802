"""A step scenario's "this step" line describes its last call only (or says it made none),
and its Events pane keeps the history of the calls (issue 23 item 2)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.compare.wait_cdf import WaitCdfPane
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.key_strip import KeyStripPane
from tests.tui.conftest import press, settle

MakeApp = Callable[..., CkvizApp]


def this_step(app: CkvizApp) -> str:
    """The line, unwrapped: it runs until the discipline's state starts."""
    pane = app.screen.query_one(DisciplinePane).plain
    return " ".join(pane.split(" · env")[0].split())


async def test_a_step_without_a_call_says_so_and_the_events_keep_the_calls(
    make_app: MakeApp,
) -> None:
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # env limit 1, hold 3 (SPEC-vtime 7): calls at 0, 4, 8 serve; step 9 finds the env full
        await press(pilot, ":", "9", "enter")
        assert this_step(app).startswith("this step: no call"), this_step(app)
        log = app.screen.query_one(EventLogPane).plain.split()
        assert [w for w in log if "-0" in w] == ["heavy-0", "light0-0", "light1-0"], log


async def test_the_line_at_the_end_of_a_run_names_the_last_call_only(make_app: MakeApp) -> None:
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, ">")  # many calls, one frame: the line is not their sum
        line = this_step(app)
        assert line.startswith("this step: ▶ heavy · won"), line
        assert "more" not in line, line


@pytest.mark.slow
async def test_the_strip_and_the_cdf_count_steps(make_app: MakeApp) -> None:
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "c", ":", "9", "enter")  # compare mode: both lanes' strips, the CDF
        await settle(pilot)
        strips = list(app.screen.query(KeyStripPane))
        assert strips
        for strip in strips:
            told = f"{strip.border_subtitle} {strip.plain.splitlines()[0]}"
            assert "ms" not in told and "step" in told, told
        cdf = app.screen.query_one(WaitCdfPane)
        axis = cdf.plain.splitlines()[-1]
        assert "ms" not in axis and "steps wait so far" in axis, axis


def listed(pane: str, after: str) -> list[str]:
    """The keys of a pane's numbered list after the line starting with `after`."""
    lines = pane.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(after)) + 1
    keys = []
    for line in lines[start:]:
        cells = line.split()
        if len(cells) < 2 or not cells[0].isdigit():
            break
        keys.append(cells[1])
    return keys


async def test_baselines_next_order_is_ckindexs(make_app: MakeApp) -> None:
    app = make_app("micro_sybil", "baseline")
    async with app.run_test(size=(140, 60)) as pilot:
        await settle(pilot)
        await press(pilot, "space")  # att00..att09 served: their next heads score later
        order = listed(app.screen.query_one(DisciplinePane).plain, "next order")
        index = listed(app.screen.query_one(CkIndexPane).plain, "")
        assert order[:3] == ["att10", "att11", "att12"], order
        assert order == index[: len(order)], (order, index)


async def test_at_t0_the_strip_does_not_stretch_one_slice_across_the_width(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "space")  # the first instant: t=0, one bucket of history
        strip = app.screen.query_one(KeyStripPane)
        rows = strip.plain.splitlines()[1:]
        drawn = [len(row.split(maxsplit=1)[1].rstrip()) for row in rows if len(row.split()) > 1]
        assert drawn and max(drawn) <= strip.size.width // 8, strip.plain
        assert "t=0ms" in strip.plain.splitlines()[0], strip.plain
