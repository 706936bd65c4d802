"""The legend (`l`): what the panes' colours and glyphs mean, in the palette's colours, docked
at the side of either mode's screen until `l` again."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from ckviz.tui.palette import FAIR, STARVED, KeyPalette
from ckviz.tui.text import BOLD, DIM
from ckviz.tui.text import STARVED as STARVED_MARK
from ckviz.tui.widgets.event_log import KIND_GLYPH
from ckviz.tui.widgets.key_strip import SERVED, WAITING
from ckviz.tui.widgets.wait_cdf import MARKS as LANE_MARKS

KEYS_SHOWN = 6  # keys named in their colour (each key keeps its colour in every pane)


class Legend(Static):
    """The legend, hidden until `l` (LaneScreen.action_legend)."""

    def show_for(self, palette: KeyPalette, keys: Sequence[str], compare: bool) -> None:
        self.update(Text("\n").join(legend_lines(palette, keys, compare)))


def legend_lines(palette: KeyPalette, keys: Sequence[str], compare: bool) -> list[Text]:
    """Colours first, then each pane's glyphs."""
    lines = [Text("Colours", BOLD)]
    named = Text("  each key its own, in every pane: ")
    for n, key in enumerate(keys[:KEYS_SHOWN]):
        named.append(" " if n else "").append(key, palette.style(key))
    if len(keys) > KEYS_SHOWN:
        named.append(" …", DIM)
    lines.append(named)
    fairness = Text("  fairness (share/weight, attainment): ")
    fairness.append(f"≥{FAIR} fair", palette.verdict(FAIR)).append(" · ")
    fairness.append(f"≥{STARVED} under-served", palette.verdict(STARVED)).append(" · ")
    fairness.append(f"<{STARVED} starved", palette.verdict(0.0))
    lines.append(fairness)
    if compare:
        lanes = Text("  lanes: ")
        lanes.append(f"{LANE_MARKS[0]} left", palette.lane(0)).append(" · ")
        lanes.append(f"{LANE_MARKS[1]} right", palette.lane(1))
        lanes.append(" · vs left: red 1.25x or worse, green 0.8x or better")
        lines.append(lanes)
    lines += [Text(line) for line in GLYPHS]
    events = Text("  Events: ")
    events.append(" ".join(f"{glyph} {kind}" for kind, glyph in KIND_GLYPH.items()))
    lines.append(events)
    lines.append(Text(f"  {STARVED_MARK} starved: owed 3 or more dequeues, got none", DIM))
    return lines


GLYPHS = (
    "Glyphs",
    "  ckIndex: ▶ next pick · │ in the scan window · head t= its true head",
    "    resc / rescored (* when narrow): a score the discipline wrote · ↑3 ↓2 = moved",
    "  Per-key: █ queue depth · ▁▂▃▅▇█ share/weight over time, full height is fair",
    f"  Keys over time: {SERVED} served · {' '.join(WAITING)} queued, none served (1, 2-9, 10+)",
    "  Held slots: · a free slot · Status: ■ done · ⋯ stepping · ▶ the lane that leads",
)
