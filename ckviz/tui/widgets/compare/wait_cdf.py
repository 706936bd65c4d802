"""Compare mode's wait CDF: the share of keys whose wait so far is at most x, one curve per
lane on the same axis, so the lane that makes its keys wait sits to the right."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

from ckviz.model.snapshot import CDF_LEVELS, Snapshot, Waits
from ckviz.player.frames import Frame
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit, lasting, wait_so_far
from ckviz.tui.widgets.pane import Pane, Rows, new_text

MARKS = ("◆", "●")  # a lane's point on a row: left lane, right lane
BOTH = "◉"  # both lanes on the same cell
# rows at most: 100%, 90%, ... 10% of the keys (fewer on a short pane, down to 4)
LEVELS, MIN_LEVELS = CDF_LEVELS[-1], CDF_LEVELS[0]
LABEL = 5  # "100% "


def lane_waits(snapshot: Snapshot, shown: Sequence[str] | None = None) -> Waits:
    """Each key's wait so far (its oldest queued run counted, as the waits table does), as
    the CDF reads them; keys with no run yet have none."""
    if snapshot.every_key.waits is not None:  # the driver's, over every key the view matched
        return snapshot.every_key.waits
    keys = None if shown is None else set(shown)
    waits = [
        wait
        for row in snapshot.keys
        if (keys is None or row.key in keys) and (wait := wait_so_far(row, snapshot)) is not None
    ]
    return Waits.of(sorted(waits))


class WaitCdfPane(Pane[Frame]):
    """One row per fraction of keys (100% on top): where each lane's CDF reaches it, as a
    mark on a shared wait axis, the gap between the lanes drawn between them."""

    TITLE = "Per-key wait CDF · share of keys waiting at most x"

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(compact=compact, id=id)
        self.shown_keys: Sequence[str] | None = None  # a filter's keys; None: every key
        self._height = 0

    def on_resize(self) -> None:
        if self._shown is not None and self.text_height != self._height:
            self.show(*self._shown)  # as many rows as fit: lay out again for a new height
        else:
            super().on_resize()

    def layout_rows(self, frame: Frame, palette: KeyPalette, width: int) -> Rows:
        self._height = self.text_height
        snaps = frame.snapshots
        waits = [lane_waits(snap, self.shown_keys) for snap in snaps]
        # A shape and a colour tell the lanes apart (never the colour alone); the lanes'
        # colours are the theme's primary and accent, not a key's.
        styles = [palette.lane(i) for i in range(len(snaps))]
        legend = new_text()
        for i, snap in enumerate(snaps):
            legend.append(f"{MARKS[i % 2]} {snap.discipline}", styles[i]).append("  ")
        counts = " / ".join(str(w.count) for w in waits)
        legend.append(f"keys {counts} · starved keys count their oldest run's age", DIM)
        if not any(w.count for w in waits):
            return Rows([legend, new_text().append("(no runs have arrived yet)", DIM)])
        longest = max(w.longest for w in waits if w.count) or 1.0
        cells = max(8, width - LABEL)
        levels = max(MIN_LEVELS, min(LEVELS, self.text_height - 2))

        def draw(i: int) -> Text:
            fraction = (levels - i) / levels
            out = new_text().append(f"{fraction:>4.0%} ", DIM)
            points = [
                None if not w.count else _cell(w.quantile(fraction), longest, cells) for w in waits
            ]
            return _track(out, points, cells, styles)

        axis = new_text().append(" " * LABEL + "0", DIM)
        label = f"{lasting(longest, snaps[0].time_unit)} wait so far"
        axis.append(label.rjust(cells - 1) if len(label) < cells else fit(label, cells - 1), DIM)
        return Rows([legend], levels, draw, [axis])


def _cell(value: float, longest: float, cells: int) -> int:
    return min(cells - 1, round(value / longest * (cells - 1)))


def _track(out: Text, points: list[int | None], cells: int, styles: list[Style]) -> Text:
    """A row of the plot: each lane's mark at its cell, a dim line between two lanes'."""
    placed = [p for p in points if p is not None]
    low, high = (min(placed), max(placed)) if len(placed) > 1 else (-1, -1)
    for cell in range(cells):
        lanes = [n for n, p in enumerate(points) if p == cell]
        if len(lanes) > 1:
            out.append(BOTH, BOLD)
        elif lanes:
            out.append(MARKS[lanes[0] % 2], styles[lanes[0]])
        elif low < cell < high:
            out.append("─", DIM)
        else:
            out.append(" ")
    return out
