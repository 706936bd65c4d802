"""One colour per concurrency key, drawn from the current theme and readable on its background."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.style import Style
from textual.color import Color

THEME_COLOURS = ("primary", "accent", "success", "error", "warning", "secondary")
ANSI_COLOURS = (
    "ansi_blue",
    "ansi_yellow",
    "ansi_green",
    "ansi_red",
    "ansi_magenta",
    "ansi_cyan",
    "ansi_bright_blue",
    "ansi_bright_yellow",
    "ansi_bright_green",
    "ansi_bright_red",
    "ansi_bright_magenta",
    "ansi_bright_cyan",
)
SIZE = 24  # sybil scenarios have 20+ keys: hues 15 degrees apart, lightness alternating
MIN_HUE_GAP = 22.0


def theme_colours(variables: Mapping[str, str], size: int = SIZE) -> list[str]:
    """`size` distinct colours: the theme's own hues first, then evenly spaced ones between.

    Lightness is pulled into a band that reads well on the theme's background.
    """
    background = variables.get("background", "#000000")
    if background.startswith("ansi"):
        return list(ANSI_COLOURS[:size])  # the terminal's palette already suits its background
    dark = Color.parse(background).brightness < 0.5
    lightness = (0.62, 0.74) if dark else (0.26, 0.36)
    hues: list[float] = []
    for name in THEME_COLOURS:
        try:
            h, s, _ = Color.parse(variables[name]).hsl
        except (KeyError, ValueError):
            continue
        if s >= 0.2 and all(_hue_gap(h * 360, other) >= MIN_HUE_GAP for other in hues):
            hues.append(h * 360)
    hues = _fill_hues(hues or [210.0], size)
    grounds = grounds_of(variables)
    colours = []
    for i, hue in enumerate(hues):
        light = lightness[0] if i % 2 == 0 else lightness[1]
        colours.append(readable(Color.from_hsl(hue / 360, 0.7, light).hex6, grounds))
    return colours


TEXT_CONTRAST = 4.5  # WCAG 2.1 (1.4.3): text against its background, at least
GRAPHICS_CONTRAST = 3.0  # WCAG 2.1 (1.4.11): a graphic's parts against theirs, at least
GROUNDS = ("background", "surface", "panel")  # what the app draws text on


def grounds_of(variables: Mapping[str, str]) -> list[Color]:
    """The theme's colours the app draws on (panes, modals, the status line)."""
    return [Color.parse(variables[name]) for name in GROUNDS if name in variables]


def luminance(colour: Color) -> float:
    """WCAG 2.1's relative luminance of an sRGB colour."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(colour.r) + 0.7152 * linear(colour.g) + 0.0722 * linear(colour.b)


def contrast(a: Color, b: Color) -> float:
    """WCAG 2.1's contrast ratio of two colours, 1 to 21."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def readable(colour: str, grounds: Sequence[Color], minimum: float = TEXT_CONTRAST) -> str:
    """`colour`, its lightness moved away from `grounds` (lighter on dark ones, darker on
    light ones) until it reads on every one at `minimum`: a key's name and a verdict are text."""
    c = Color.parse(colour)
    if not grounds:
        return colour
    lighten = sum(g.brightness for g in grounds) / len(grounds) < 0.5
    h, s, light = c.hsl
    while min(contrast(c, g) for g in grounds) < minimum and 0.0 < light < 1.0:
        light = min(1.0, light + 0.02) if lighten else max(0.0, light - 0.02)
        c = Color.from_hsl(h, s, light)
    return c.hex6


def _hue_gap(a: float, b: float) -> float:
    gap = abs(a - b) % 360
    return min(gap, 360 - gap)


def _fill_hues(hues: list[float], size: int) -> list[float]:
    """Add hues into the widest gaps until there are `size` of them."""
    hues = list(hues)
    while len(hues) < size:
        ordered = sorted(hues)
        gaps = [
            ((ordered[(i + 1) % len(ordered)] - h) % 360 or 360, h) for i, h in enumerate(ordered)
        ]
        width, start = max(gaps)
        hues.append((start + width / 2) % 360)
    return hues[:size]


FAIR = 0.8  # share/weight at or above: fair enough (the theme's success colour)
STARVED = 0.5  # below: starved (its error colour); between: its warning colour


def verdict_colours(variables: Mapping[str, str]) -> tuple[str, str, str]:
    """The theme's colours for fair, uneasy and starved (success, warning, error)."""
    names = ("success", "warning", "error")
    fallback = ("green", "yellow", "red")
    grounds = (
        grounds_of(variables) if not variables.get("background", "").startswith("ansi") else []
    )
    fair, uneasy, starved = (
        readable(variables.get(n, f), grounds) if n in variables else f
        for n, f in zip(names, fallback, strict=True)
    )
    return fair, uneasy, starved


LANE_COLOURS = ("primary", "accent")  # the left and the right lane's, where a lane is drawn


def lane_colours(variables: Mapping[str, str]) -> tuple[str, ...]:
    """The theme's colours for compare mode's lanes (the CDF's marks), readable as text."""
    if variables.get("background", "").startswith("ansi"):
        return ("ansi_bright_blue", "ansi_bright_magenta")
    grounds = grounds_of(variables)
    return tuple(
        readable(variables.get(n, f), grounds)
        for n, f in zip(LANE_COLOURS, ("blue", "magenta"), strict=True)
    )


class KeyPalette:
    """Maps each key of a scenario to its colour; the same key gets the same style everywhere.

    It also holds the verdict colours: a share/weight is drawn fair, uneasy or starved.
    """

    def __init__(
        self,
        keys: Sequence[str],
        colours: Sequence[str],
        verdicts: Sequence[str] = ("green", "yellow", "red"),
        lanes: Sequence[str] = ("blue", "magenta"),
    ) -> None:
        self._verdicts = [Style(color=Color.parse(c).rich_color, bold=True) for c in verdicts]
        self._lanes = [Style(color=Color.parse(c).rich_color, bold=True) for c in lanes]
        self._colours = list(colours) or ["default"]
        rich = [Color.parse(c).rich_color if c != "default" else None for c in self._colours]
        self._styles = [Style(color=c) for c in rich]
        self._bold = [Style(color=c, bold=True) for c in rich]
        self._index = {key: i for i, key in enumerate(keys)}

    def verdict(self, share: float) -> Style:
        """Bold, in the theme's success / warning / error colour by FAIR and STARVED."""
        return self._verdicts[0 if share >= FAIR else 1 if share >= STARVED else 2]

    def lane(self, index: int) -> Style:
        """Compare mode's lane `index`, bold in its colour (its shape tells it apart too)."""
        return self._lanes[index % len(self._lanes)]

    @property
    def starved(self) -> Style:
        return self._verdicts[2]

    def colour(self, key: str) -> str:
        return self._colours[self._slot(key)]

    def style(self, key: str, bold: bool = False) -> Style:
        return (self._bold if bold else self._styles)[self._slot(key)]

    def _slot(self, key: str) -> int:
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self._index)
        return index % len(self._colours)
