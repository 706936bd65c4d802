"""Meeting mode's projector theme, and the default theme, read well (issue 23 item 9): text at
least 4.5:1 and graphics at least 3:1 against what they are drawn on (WCAG 2.1), computed from
each theme's colours and the colours the app draws keys and verdicts in."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from ckviz.tui.palette import (
    GRAPHICS_CONTRAST,
    TEXT_CONTRAST,
    contrast,
    grounds_of,
    lane_colours,
    theme_colours,
    verdict_colours,
)
from ckviz.tui.themes import DEFAULT_THEME, PROJECTOR

THEMES = {DEFAULT_THEME: BUILTIN_THEMES[DEFAULT_THEME], PROJECTOR.name: PROJECTOR}


def variables(name: str) -> dict[str, str]:
    return THEMES[name].to_color_system().generate()


def resolved(value: str, ground: Color) -> Color:
    """A CSS colour value as drawn on `ground`: `auto 60%` is Textual's contrasting text at
    that alpha; a colour with alpha is blended onto the ground."""
    if value.startswith("auto"):
        alpha = float(value.split()[1].rstrip("%")) / 100 if " " in value else 1.0
        return ground + ground.get_contrast_text(alpha)
    if " " in value:  # `#e0e0e0 50%`: the colour at that alpha
        colour, alpha = value.split()
        return ground + Color.parse(colour).with_alpha(float(alpha.rstrip("%")) / 100)
    return ground + Color.parse(value)


def test_the_contrast_ratio_is_wcag_s() -> None:
    assert contrast(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast(Color(118, 118, 118), Color(255, 255, 255)) == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("name", list(THEMES))
def test_every_text_colour_reads_at_4_5_to_1(name: str) -> None:
    v = variables(name)
    grounds = grounds_of(v)
    assert len(grounds) == 3
    texts = {
        "foreground": v["foreground"],
        "text-muted": v["text-muted"],
        "text-primary": v["text-primary"],  # pane titles
        **{f"verdict {i}": c for i, c in enumerate(verdict_colours(v))},
        **{f"key colour {i}": c for i, c in enumerate(theme_colours(v))},
        **{f"lane colour {i}": c for i, c in enumerate(lane_colours(v))},  # the CDF's marks
    }
    low = {
        (what, str(ground.hex6)): round(ratio, 2)
        for what, value in texts.items()
        for ground in grounds
        if (ratio := contrast(resolved(value, ground), ground)) < TEXT_CONTRAST
    }
    assert not low, f"{name}: below {TEXT_CONTRAST}:1: {low}"


@pytest.mark.parametrize("name", list(THEMES))
def test_every_graphic_reads_at_3_to_1(name: str) -> None:
    v = variables(name)
    background = Color.parse(v["background"])
    # the panes' and lanes' borders (ckviz.tcss), the modals', the CDF's marks (the lanes'
    # colours), the strip's and the bars' cells (the keys')
    borders = [f"{v['foreground']} 50%", v["primary"]]
    graphics = [*borders, *lane_colours(v), *theme_colours(v)]
    ratios = [contrast(resolved(c, background), background) for c in graphics]
    assert min(ratios) >= GRAPHICS_CONTRAST, f"{name}: {[round(r, 2) for r in ratios]}"


def test_the_borders_the_test_reads_are_the_app_s() -> None:
    """The graphics above are what ckviz.tcss draws borders in."""
    from ckviz.tui.app import CkvizApp

    tcss = Path(CkvizApp.CSS_PATH).read_text(encoding="utf-8")
    lines = [line.strip() for line in tcss.splitlines()]
    borders = {
        line.split(":", 1)[1].split(";")[0].strip() for line in lines if line.startswith("border:")
    }
    borders.discard("none")
    assert borders == {"round $foreground 50%", "round $primary"}
