"""SVG snapshots of the main screen and compare mode (textual pinned; nothing time-like shown).

Update after an intended change with `uv run pytest tests/tui --snapshot-update`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from ckviz.tui.app import CkvizApp
from tests.tui.conftest import SIZE, press, press_n, settle

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]
Snap = Callable[..., bool]


def stepping(*keys: str) -> Callable[[Pilot[Any]], Any]:
    """Each key pressed and its frame drawn, as a person steps (a table's columns widen to
    the widest value drawn so far: these pictures hold the screen a stepping person sees)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await press(pilot, *keys)

    return run_before


def jumping(*keys: str) -> Callable[[Pilot[Any]], Any]:
    """The keys, each run of `n` as one driver job drawn once (the same frames recorded; a
    press costs a screen's drawing, and these pictures are of the panes, not of the steps)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key, run in itertools.groupby(keys):
            if key == "n":
                await press_n(pilot, len(list(run)))
            else:
                await press(pilot, *run)

    return run_before


def test_main_screen_baseline(snap_compare: Snap, make_app: MakeApp) -> None:
    app = make_app("ck_skew", "baseline")
    assert snap_compare(app, terminal_size=SIZE, run_before=stepping(*["n"] * 12))


def test_main_screen_sfq_light_theme(snap_compare: Snap, make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    assert snap_compare(app, terminal_size=SIZE, run_before=jumping("t", *["n"] * 12))


def test_compare_mode(snap_compare: Snap, make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    assert snap_compare(app, terminal_size=SIZE, run_before=stepping("c", *["n"] * 15))


def test_compare_mode_projector_theme_with_the_verdict(
    snap_compare: Snap, make_app: MakeApp
) -> None:
    # meeting mode: the projector theme, the verdict banner, a keys over time strip per lane
    app = make_app("ck_skew", "baseline", compare_with="sfq")
    keys = ("t", "t", *["n"] * 30)
    assert snap_compare(app, terminal_size=(140, 44), run_before=jumping(*keys))


def test_step_back_replay(snap_compare: Snap, make_app: MakeApp) -> None:
    app = make_app("ck_trickle", "drr")
    assert snap_compare(app, terminal_size=SIZE, run_before=jumping(*["n"] * 8, "b", "b"))


def test_main_screen_vtime_pane(snap_compare: Snap, make_app: MakeApp) -> None:
    # the discipline pane's vtime section: floor, tags, idle set, the last call's two passes
    app = make_app("ck_skew", "vtime")
    assert snap_compare(app, terminal_size=(140, 50), run_before=jumping(*["n"] * 9))


def test_main_screen_80x24(snap_compare: Snap, make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    assert snap_compare(app, terminal_size=(80, 24), run_before=jumping(*["n"] * 12))


def test_main_screen_200x50(snap_compare: Snap, make_app: MakeApp) -> None:
    app = make_app("ck_sybil", "drr")
    assert snap_compare(app, terminal_size=(200, 50), run_before=jumping(*["n"] * 12))


def test_compare_mode_with_a_starved_key(snap_compare: Snap, make_app: MakeApp) -> None:
    # baseline serves heavy-0's backlog first: heavy-1.. starve (✖) while sfq serves them
    app = make_app("ck_sybil", "sfq")
    assert snap_compare(app, terminal_size=(200, 50), run_before=jumping("c", *["n"] * 30))


def test_pictures_sfq_200x50(snap_compare: Snap, make_app: MakeApp) -> None:
    # ckIndex beside sfq's order, share/weight sparklines, the key x time strip
    app = make_app("ck_sybil", "sfq")
    assert snap_compare(app, terminal_size=(200, 50), run_before=jumping(*["n"] * 20))


def test_compare_wait_cdf_80x24(snap_compare: Snap, make_app: MakeApp) -> None:
    # narrow: `w` shows the wait CDF in the wait table's place
    app = make_app("ck_skew", "sfq")
    assert snap_compare(app, terminal_size=(80, 24), run_before=jumping("c", *["n"] * 15, "w"))


def test_main_screen_filtered(snap_compare: Snap, make_app: MakeApp) -> None:
    # `/hy1`: only heavy-1 and heavy-1x keys in every pane, the filter bar above the footer
    app = make_app("ck_sybil", "sfq")
    assert snap_compare(
        app,
        terminal_size=(120, 36),
        run_before=jumping(*["n"] * 12, "slash", "h", "y", "1", "enter"),
    )


def test_compare_mode_80x24(snap_compare: Snap, make_app: MakeApp) -> None:
    # narrow: the lanes side by side, the waits full width (the event logs give way)
    app = make_app("ck_skew", "sfq")
    assert snap_compare(app, terminal_size=(80, 24), run_before=jumping("c", *["n"] * 15))
