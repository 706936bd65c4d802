"""The pictures: the key x time strip, share/weight sparklines, the wait CDF in compare mode
and ckIndex beside the discipline's order, from hand-built frames and from real runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from itertools import pairwise

import pytest

from ckviz.fairness_so_far import SoFar
from ckviz.inputs import scenario_files
from ckviz.model.history import History
from ckviz.model.snapshot import KeyRow, Snapshot
from ckviz.player.frames import Frame, Setup
from ckviz.sim.engine.history import HistoryRecorder
from ckviz.tui.app import CkvizApp
from ckviz.tui.sparkline import SPARKS
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.compare.wait_cdf import MARKS, WaitCdfPane
from ckviz.tui.widgets.compare.wait_compare import WaitComparePane
from ckviz.tui.widgets.queue.ck_index import GUTTER, CkIndexPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from ckviz.tui.widgets.queue.key_strip import KeyStripPane, strip_keys
from tests.tui.conftest import SIZE, press, press_n, settle
from tests.tui.fake_source import BASE, HandMade, snapshot

MakeApp = Callable[..., CkvizApp]
FAIR = SoFar()


def lane(
    keys: dict[str, tuple[int, int, float | None]], t: int, history: History | None = None
) -> Snapshot:
    """A snapshot at `t` whose keys have (queued, dequeued, head arrival ms) as given."""
    rows = tuple(
        KeyRow(key, 1.0, queued, 0, out, 0, None if head is None else BASE + head, 0)
        for key, (queued, out, head) in keys.items()
    )
    base = snapshot(tuple(keys), 0, 1, total_cap=None)
    return replace(base, keys=rows, t=t, history=history, events=base.events)


def single(snap: Snapshot) -> Frame:
    setup = Setup(scenario_files.load("ck_skew"), "seed-a", ("baseline",))
    return Frame(setup, (snap,), (FAIR,))


def row_of(text: str, key: str) -> str:
    return next(line for line in text.splitlines() if line.split() and line.split()[0] == key)


def longest_run(text: str, glyphs: str) -> int:
    best = run = 0
    for char in text:
        run = run + 1 if char in glyphs else 0
        best = max(best, run)
    return best


def starving() -> History:
    """heavy is served every 5 ms for 300 ms while light-1, queued from t=0, never is."""
    recorder = HistoryRecorder({"heavy": 1.0, "light-1": 1.0})
    recorder.enqueued("light-1", 0)
    for t in range(0, 300, 5):
        recorder.enqueued("heavy", t)
        recorder.dequeued("heavy", t)
    return recorder.view(299)


async def test_a_starved_key_shows_a_long_dark_run_in_the_strip() -> None:
    keys = {"heavy": (0, 60, None), "light-1": (1, 0, 0.0)}
    app = CkvizApp(HandMade(single(lane(keys, 299, starving()))), "ck_skew", "baseline")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        strip = app.screen.query_one(KeyStripPane).plain
        light = row_of(strip, "light-1")[len("light-1") :]
        heavy = row_of(strip, "heavy")[len("heavy") :]
        assert "█" not in light and longest_run(light, "░▒▓") >= 30, strip
        assert heavy.count("█") >= 30 and longest_run(heavy, "░▒▓") == 0, strip
        # the light key (the scenario's) is pinned first, the longest waiting next
        assert strip.splitlines()[1].split()[0] == "light-1"
        await pilot.press("q")


def rising() -> History:
    """a and b both wait from t=0; only a is served for 150 ms, then only b."""
    recorder = HistoryRecorder({"a": 1.0, "b": 1.0})
    for t in range(300):
        recorder.enqueued("a", t)
        recorder.enqueued("b", t)
        recorder.dequeued("a" if t < 150 else "b", t)
    return recorder.view(299)


def spark_cells(text: str, key: str) -> list[int]:
    """The share/weight sparkline of `key`'s row in the per-key table, as levels 0-7."""
    header = text.splitlines()[0]
    start = header.index("share")
    cells = row_of(text, key)[start:].rstrip()
    return [SPARKS.index(c) for c in cells]


@pytest.mark.slow
async def test_the_share_sparkline_rises_as_a_key_is_served() -> None:
    keys = {"a": (150, 150, 150.0), "b": (150, 150, 150.0)}
    app = CkvizApp(HandMade(single(lane(keys, 299, rising()))), "ck_skew", "baseline")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(KeyQueuesPane).plain
        b, a = spark_cells(table, "b"), spark_cells(table, "a")
        assert len(b) >= 6 and b[0] == 0 and b[-1] > b[0], table
        assert all(x <= y for x, y in pairwise(b)), b
        assert set(a) == {len(SPARKS) - 1}, a  # a never below its fair share: full height
        await pilot.press("q")


def compare_frame() -> Frame:
    """The left lane leaves four light keys queued since t=0 and unserved (starved); the
    right lane has served them within a few ms."""
    light = [f"light-{i}" for i in range(1, 5)]
    starved = lane({"heavy": (5, 40, 480.0), **{k: (2, 0, 0.0) for k in light}}, 500)
    fair = lane({"heavy": (5, 30, 470.0), **{k: (0, 2, None) for k in light}}, 500)
    fair = replace(fair, discipline="sfq")
    setup = Setup(scenario_files.load("ck_skew"), "seed-a", ("baseline", "sfq"))
    return Frame(setup, (starved, fair), (FAIR, FAIR))


async def test_the_starved_lanes_cdf_sits_right_of_the_fair_lanes() -> None:
    app = CkvizApp(HandMade(compare_frame()), "ck_skew", "baseline", compare_with="sfq")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        cdf = app.screen.query_one(WaitCdfPane)
        assert cdf.display and app.screen.query_one(WaitComparePane).display
        lines = cdf.plain.splitlines()
        assert lines[0].startswith(f"{MARKS[0]} baseline  {MARKS[1]} sfq")
        plot = [line for line in lines if line.strip().endswith(tuple(MARKS))]
        assert len(plot) >= 4, cdf.plain
        for line in plot:  # every fraction of keys: the starving lane waits longer
            assert line.index(MARKS[0]) > line.index(MARKS[1]), cdf.plain
        await pilot.press("q")


@pytest.mark.slow
async def test_w_swaps_the_wait_table_and_the_cdf_when_narrow() -> None:
    app = CkvizApp(HandMade(compare_frame()), "ck_skew", "baseline", compare_with="sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table, cdf = app.screen.query_one(WaitComparePane), app.screen.query_one(WaitCdfPane)
        assert table.display and not cdf.display
        await pilot.press("w")
        assert cdf.display and not table.display
        assert cdf.region.width > 0 and MARKS[0] in cdf.plain
        await pilot.press("w")
        assert table.display and not cdf.display
        await pilot.press("q")


async def test_sfq_on_ck_skew_reorders_ckindex_side_by_side(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "space")  # t=0: every key arrives, one run out
        pane = app.screen.query_one(CkIndexPane)
        lines = pane.plain.splitlines()
        assert "Redis's order" in lines[1] and "sfq's order" in lines[1]
        assert pane.border_title == "ckIndex · Redis's order · sfq's"
        rows = [line.split(GUTTER, 1) for line in lines[2:] if GUTTER in line]
        left = [_key(cells[0]) for cells in rows]
        right = [_key(cells[-1]) for cells in rows]
        assert sorted(left) == sorted(right) and left != right, pane.plain
        assert left[0] == "heavy" and right[-1] == "heavy"  # Redis's head goes last for sfq
        pick = next(cells[-1] for cells in rows if "▶" in cells[-1])
        assert pick.strip().startswith("▶ 1 light-1"), pane.plain
        await pilot.press("q")


def _key(cell: str) -> str:
    """The key in one side of a side-by-side ckIndex row (after its mark and rank)."""
    return next(
        word for word in cell.replace("▶", " ").replace("│", " ").split() if not word.isdigit()
    )


@pytest.mark.slow
async def test_baseline_keeps_one_list_in_redis_order(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "space")
        pane = app.screen.query_one(CkIndexPane)
        assert pane.border_title == "ckIndex · Redis's order"
        assert "sfq's order" not in pane.plain and "Redis's order (as read)" not in pane.plain
        await pilot.press("q")


@pytest.mark.slow
async def test_a_real_baseline_run_draws_the_light_keys_starving(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        await press_n(pilot, 12)
        strip = app.screen.query_one(KeyStripPane).plain
        light = row_of(strip, "light-1")[len("light-1") :]
        assert "█" not in light and longest_run(light, "░▒▓") >= 10, strip
        assert "█" in row_of(strip, "heavy")
        table = app.screen.query_one(KeyQueuesPane).plain
        assert set(spark_cells(table, "light-1")) == {0}, table  # share/weight 0 throughout
        status = app.screen.query_one(StatusBar).text.plain
        assert "most under-served light-1 ✖ 0.00 of its share" in status, status  # starved
        assert status.split("of its share", 1)[1].lstrip().startswith("▁"), status  # its trend
        await pilot.press("q")


@pytest.mark.slow
async def test_6_focuses_the_strip_and_z_zooms_it(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press_n(pilot, 4)
        strip = app.screen.query_one(KeyStripPane)
        assert strip.region.height >= 5  # fits at 80x24: a header and the pinned keys
        await press(pilot, "6")
        assert app.focused is strip
        await press(pilot, "z")
        assert app.screen.maximized is strip and strip.region.height >= 20
        await press(pilot, "z")
        assert app.screen.maximized is None
        await pilot.press("q")


@pytest.mark.slow
async def test_a_step_harness_run_has_its_pictures_too(make_app: MakeApp) -> None:
    app = make_app("vtime_fresh_flood", "vtime")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_n(pilot, 8)
        frame = app.player.recording.current
        assert frame is not None and frame.snapshots[0].history is not None
        assert frame.trends and frame.trends[0] is not None
        strip = app.screen.query_one(KeyStripPane).plain
        served = [line for line in strip.splitlines()[1:] if "█" in line]
        assert len(served) >= 2, strip  # the backlog key and the fresh keys served in turn
        await pilot.press("q")


def test_pinned_keys_come_first_then_the_rest_in_scenario_order() -> None:
    keys = tuple(f"k{i}" for i in range(12))
    snap = lane({k: (1, 0, float(i)) for i, k in enumerate(keys)}, 100)  # k0 waits longest
    for light, worst in [("k7", "k3"), ("k11", None), (None, "k0"), ("k5", "k5"), (None, None)]:
        pins = list(dict.fromkeys(k for k in (light, worst, "k0") if k is not None))
        expected = pins + [k for k in keys if k not in pins]
        rows = strip_keys(snap, light, worst_key=worst)
        assert [rows[i] for i in range(len(rows))] == expected
    assert list(strip_keys(snap, "k7", ["k9", "k7", "k1"])) == ["k7", "k9", "k1"]
    shown = [k for k in keys if k != "k4"]  # a filter's keys, some pinned: the same rows
    for light, worst in [("k7", "k3"), ("k4", "k0"), ("k11", "k11"), (None, None)]:
        pins = [k for k in dict.fromkeys((light, worst, "k0")) if k in shown]
        rows = strip_keys(snap, light, shown, worst_key=worst)
        assert list(rows) == pins + [k for k in shown if k not in pins]
