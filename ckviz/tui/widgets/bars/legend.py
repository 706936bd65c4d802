"""The legend (`l`): what the panes' colours and glyphs mean, in the palette's colours, docked
at the side of either mode's screen until `l` again."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from ckviz.player.frames import Origin
from ckviz.tui.palette import FAIR, STARVED, KeyPalette
from ckviz.tui.text import BOLD, DIM
from ckviz.tui.text import STARVED as STARVED_MARK
from ckviz.tui.widgets.compare.wait_cdf import MARKS as LANE_MARKS
from ckviz.tui.widgets.queue.event_log import KIND_GLYPH
from ckviz.tui.widgets.queue.key_strip import SERVED, WAITING

KEYS_SHOWN = 6  # keys named in their colour (each key keeps its colour in every pane)


class Legend(Static):
    """The legend, hidden until `l` (LaneScreen.action_legend)."""

    def toggle(self, palette: KeyPalette, origin: Origin) -> None:
        """Shown (drawn for `origin`'s keys in `palette`'s colours), or hidden again."""
        if self.has_class("-shown"):
            self.remove_class("-shown")
            return
        lines = legend_lines(palette, list(origin.key_order()), origin.compare)
        self.update(Text("\n").join(lines))
        self.add_class("-shown")


def legend_lines(palette: KeyPalette, keys: Sequence[str], compare: bool) -> list[Text]:
    """Colours first, then each pane's glyphs, a short line each (the legend is narrow)."""
    lines = [Text("Colours", BOLD)]
    named = Text("  keys: ")
    for n, key in enumerate(keys[:KEYS_SHOWN]):
        named.append(" " if n else "").append(key, palette.style(key))
    named.append(" …" if len(keys) > KEYS_SHOWN else "", DIM)
    lines.append(named.append(" (one each, every pane)", DIM))
    fairness = Text("  ")
    fairness.append(f"fair ≥{FAIR}", palette.verdict(FAIR)).append(" · ")
    fairness.append(f"under-served ≥{STARVED}", palette.verdict(STARVED)).append(" · ")
    fairness.append(f"starved <{STARVED}", palette.verdict(0.0))
    lines += [fairness, Text("    share/weight, attainment", DIM)]
    if compare:
        lanes = Text("  ")
        lanes.append(f"{LANE_MARKS[0]} left lane", palette.lane(0)).append(" · ")
        lanes.append(f"{LANE_MARKS[1]} right lane", palette.lane(1))
        lines += [lanes, Text("  vs left: red 1.25x or worse, green 0.8x or better")]
    for title, *glyphs in GLYPHS:
        lines.append(Text(title, BOLD))
        lines += [Text(f"  {line}") for line in glyphs]
    events = " ".join(f"{glyph} {kind}" for kind, glyph in KIND_GLYPH.items())
    lines += [Text("Events", BOLD), Text(f"  {events}")]
    return lines


GLYPHS = (
    (
        "ckIndex",
        "▶ next pick · │ in the scan window",
        "head t= a true head · resc (* narrow) rescored",
        "↑3 ↓2 = moved by the discipline's order",
    ),
    ("Per-key queues", "█ queue depth · ▁▃▅█ share/weight (█: fair)"),
    (
        "Keys over time",
        f"{SERVED} served · {' '.join(WAITING)} queued, none served",
        "(1 run, 2-9, 10+)",
    ),
    ("Held slots", "· a free slot · ▶ taken this step"),
    (
        "Status",
        f"■ done · ⋯ stepping · {STARVED_MARK} starved",
        "(owed 3 or more dequeues, got none)",
    ),
)
