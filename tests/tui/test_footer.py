"""Issue 11: the footer changes with the situation and always shows `?` and `q`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets._footer import FooterKey, FooterLabel

from ckviz.tui.app import CkvizApp
from ckviz.tui.context import ALWAYS, Context, Offer, fitting, footer_offers
from tests.tui.conftest import press, settle

MakeApp = Callable[..., CkvizApp]


def footer(app: Any) -> str:
    """The footer as read: `key label` items in order, the speed group as `+- Speed`."""
    items = []
    for widget in app.screen.query("ContextFooter *"):
        if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
            items.append(f"{widget.key_display} {widget.description}".strip())
        elif isinstance(widget, FooterLabel):
            items.append(str(widget.render()))
    return " | ".join(items)


def test_fitting_keeps_the_best_ranked_and_always_help_and_quit() -> None:
    offers = {"help": Offer(ALWAYS), "quit": Offer(ALWAYS), "step": Offer(90), "seed": Offer(10)}
    offered = [("step", 10), ("seed", 10), ("help", 7), ("quit", 7)]
    assert fitting(offered, offers, 30) == {"help", "quit", "step"}
    assert fitting(offered, offers, 0) == {"help", "quit"}


def test_offers_follow_the_situation() -> None:
    paused = footer_offers(Context())
    assert paused["step"].label == "Step" and "instant" in paused and "clear_filter" not in paused
    playing = footer_offers(Context(playing=True))
    assert playing["play"].label == "Pause" and "step" not in playing
    steps = footer_offers(Context(steps=True))
    assert steps["step"].label == "Call" and "instant" not in steps and "pick_seed" not in steps
    assert steps["go_to"].label == "Go to step"
    assert "pick_discipline(1)" in footer_offers(Context(compare=True))
    assert "pick_discipline(1)" not in paused
    assert "clear_filter" in footer_offers(Context(filtered=True))
    done = footer_offers(Context(done=True))
    assert "restart" in done and "step" not in done
    assert footer_offers(Context(pane="queues"))["sort_keys"].rank > paused["toggle_dark"].rank


@pytest.mark.slow
async def test_the_footer_drops_the_theme_first_and_keeps_w_in_compare_mode(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = footer(app)
        # at 120 columns the theme went first, not u (nor c, x, d, s, r: ranked above it)
        assert "t Theme" not in shown and "u Until served" in shown, shown
    setup = footer_offers(Context())
    for action in ("compare", "export", "pick_discipline(0)", "pick_scenario", "restart"):
        assert setup[action].rank > setup["toggle_dark"].rank
    app = make_app("ck_skew", "sfq", compare_with="baseline")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "w Waits/CDF" in footer(app)


@pytest.mark.parametrize("width", [80, 99, 120, 200])
@pytest.mark.slow
async def test_the_footer_fits_and_always_shows_help_and_quit(
    make_app: MakeApp, width: int
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        shown = footer(app)
        assert "? Help" in shown and "q Quit" in shown and "+- | Speed" not in shown
        assert "Speed" in shown and "space Step" in shown
        cells = sum(w.region.width for w in app.screen.query("ContextFooter > *"))
        assert cells <= width, shown
        print(width, shown)
        if width >= 120:
            assert ": Go to t" in shown
        if width >= 200:  # room for the legend (the theme, last of all, goes first)
            assert "l Legend" in shown and "c Compare" in shown
        await pilot.press("p")
        await settle(pilot)
        playing = footer(app)
        assert "p Pause" in playing and "space Step" not in playing and "? Help" in playing
        await pilot.press("p")
        await pilot.press("q")


@pytest.mark.slow
async def test_the_footer_in_compare_mode_filtered_and_step_scenarios(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        assert "D Right lane" not in footer(app)
        await press(pilot, "c")
        assert "D Right lane" in footer(app) and "d Left lane" in footer(app)
        await pilot.press("slash", "h", "enter")
        await settle(pilot)
        assert "esc Clear filter" in footer(app)
        await pilot.press("escape")
        await settle(pilot)
        assert "esc Clear filter" not in footer(app)
        await pilot.press("q")
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        shown = footer(app)
        assert "space Call" in shown and "n Instant" not in shown and "e Seed" not in shown
        assert ": Go to step" in shown
        await pilot.press("q")


@pytest.mark.slow
async def test_focus_and_zoom_change_the_footer(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert "z Zoom" not in footer(app)
        await press(pilot, "2")  # the per-key queues
        assert "z Zoom" in footer(app) and "o Sort" in footer(app)
        await press(pilot, "z")
        assert "z Unzoom" in footer(app)
        await pilot.press("q")
