"""Issue 11: `/` filters the keys of every pane (fuzzy, as fzf), shows in the filter bar above
the footer, and esc clears it; the matching is cheap on many keys."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Input

from ckviz.model.snapshot import KeyRow
from ckviz.player.filter import KeyFilter, fuzzy_match
from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.bars.filter_bar import FilterBar
from ckviz.tui.widgets.compare.wait_compare import WaitComparePane
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from ckviz.tui.widgets.queue.key_strip import KeyStripPane
from tests.tui.conftest import SIZE, palette, press, press_n, settle

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]


def test_fuzzy_match_is_an_in_order_case_insensitive_subsequence() -> None:
    assert fuzzy_match(["lt1"], "light-1")
    assert fuzzy_match(["lt1"], "LIGHT-1")
    assert not fuzzy_match(["1lt"], "light-1")  # order matters
    assert not fuzzy_match(["lt1"], "light-2")
    assert fuzzy_match(["hv", "0"], "heavy-0") and not fuzzy_match(["hv", "9"], "heavy-0")
    assert fuzzy_match([], "anything")


NAMES = st.text(st.sampled_from("aAbß.*?+[](){}|\\^$-1 İ"), max_size=8)


@given(st.lists(NAMES, max_size=12), NAMES)
def test_a_filter_keeps_exactly_the_keys_fuzzy_match_takes(keys: list[str], query: str) -> None:
    """The filter runs each term as a regular expression: regex characters in a query or a
    key, cases and casefolding (ß, İ) answer as fuzzy_match's own walk does."""
    expected = [k for k in keys if fuzzy_match(query.casefold().split(), k)]
    key_filter = KeyFilter(query)
    names = tuple(keys)
    assert key_filter.keep(names, str) == expected
    assert key_filter.keep(names, str) == expected  # asked again: the same answer
    assert [k for k in keys if key_filter.matches(k)] == expected


def rows(names: list[str]) -> tuple[KeyRow, ...]:
    return tuple(KeyRow(n, 1.0, 0, 0, 0, 0, None, 0) for n in names)


def test_keep_rows_finds_matches_once_and_follows_a_changed_key_list() -> None:
    key_filter = KeyFilter("reg-1")
    names = [f"reg-{i}" for i in range(10_000)]
    first = key_filter.keep_rows(rows(names))
    assert [r.key for r in first][:3] == ["reg-1", "reg-10", "reg-11"]
    assert len(first) == sum(1 for n in names if fuzzy_match(["reg-1"], n))
    # same keys, same order, new rows (the next step): the same answer
    assert [r.key for r in key_filter.keep_rows(rows(names))] == [r.key for r in first]
    # the step scenario mints a key: a longer list is looked at afresh
    grown = key_filter.keep_rows(rows([*names, "reg-1x"]))
    assert grown[-1].key == "reg-1x"
    assert not KeyFilter("  ") and KeyFilter("").keep_rows(rows(["a", "b"]))[1].key == "b"


def lines_with(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if word in line]


async def test_slash_filters_every_pane_and_esc_clears_it(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_n(pilot, 12)
        screen = app.screen
        assert lines_with(screen.query_one(KeyQueuesPane).plain, "heavy")
        await pilot.press("slash")
        bar = screen.query_one(FilterBar)
        assert bar.display and isinstance(app.focused, Input)
        for key in "lt1":  # light-1, fuzzy
            await pilot.press(key)
        await settle(pilot)
        queues = screen.query_one(KeyQueuesPane).plain
        assert lines_with(queues, "light-1") and not lines_with(queues, "heavy")
        assert not lines_with(queues, "light-2")
        assert lines_with(screen.query_one(KeyStripPane).plain, "light-1")
        assert "/lt1" in str(screen.query_one(KeyQueuesPane).border_subtitle)
        for pane in (HeldSlotsPane, EventLogPane, DisciplinePane, CkIndexPane, KeyStripPane):
            text = screen.query_one(pane).plain
            assert not lines_with(text, "heavy~") and not lines_with(text, " heavy "), pane
        # the bar says what is in force and how many keys match
        assert "1 of 5 keys" in str(bar.query_one("#filter-count").render())
        await pilot.press("enter")  # keeps the filter, gives the keys back to the app
        await settle(pilot)
        assert app.focused is None and bar.display and app.player.view.key_filter.query == "lt1"
        await press(pilot, "n")  # stepping keeps the filter
        assert not lines_with(screen.query_one(KeyQueuesPane).plain, "heavy")
        await pilot.press("escape")
        await settle(pilot)
        assert not app.player.view.key_filter and not bar.display
        assert lines_with(screen.query_one(KeyQueuesPane).plain, "heavy")
        await pilot.press("q")


async def test_esc_while_typing_clears_and_closes(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", "h", "v")
        await settle(pilot)
        assert app.player.view.key_filter.query == "hv"
        assert not lines_with(app.screen.query_one(KeyQueuesPane).plain, "light-1")
        await pilot.press("escape")
        await settle(pilot)
        assert not app.player.view.key_filter and app.focused is None
        assert lines_with(app.screen.query_one(KeyQueuesPane).plain, "light-1")
        # keys work again: n steps, q quits
        step = app.player.recording.current.snapshots[0].step  # type: ignore[union-attr]
        await press(pilot, "n")
        assert app.player.recording.current.snapshots[0].step > step  # type: ignore[union-attr]
        await pilot.press("q")


async def test_the_filter_follows_into_compare_mode(make_app: MakeApp) -> None:
    app = make_app("ck_sybil", "sfq")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "h", "y", "1", "enter")
        await settle(pilot)
        await press(pilot, "c", *["n"] * 5)
        waits = app.screen.query_one(WaitComparePane).plain.splitlines()[1:]
        assert waits and all("1" in line.split()[0] for line in waits if line.strip())
        bar = app.screen.query_one(FilterBar)
        assert bar.display and "keys" in str(bar.query_one("#filter-count").render())
        await pilot.press("q")


async def test_a_filter_matching_nothing_says_so(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n")
        await pilot.press("slash", "z", "z", "z", "enter")
        await settle(pilot)
        assert "no key here matches /zzz" in app.screen.query_one(KeyQueuesPane).plain
        assert "0 of 5 keys" in str(
            app.screen.query_one(FilterBar).query_one("#filter-count").render()
        )
        await pilot.press("q")


async def test_the_palette_opens_the_filter_and_esc_also_leaves_a_zoom(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette(pilot, "filter keys", "Filter keys…")
        assert isinstance(app.focused, Input)
        await pilot.press("h", "v", "enter")
        await settle(pilot)
        assert app.player.view.key_filter.query == "hv"
        await press(pilot, "z")
        assert app.screen.maximized is not None
        await press(pilot, "escape")  # the filter goes first
        assert not app.player.view.key_filter and app.screen.maximized is not None
        await press(pilot, "escape")  # then the zoom
        assert app.screen.maximized is None
        await pilot.press("q")
