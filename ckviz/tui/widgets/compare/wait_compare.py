"""Compare mode's per-key wait comparison: each key's wait so far under each discipline."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ckviz.model.snapshot import KeyRow, Snapshot
from ckviz.player.frames import Frame
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import (
    BOLD,
    DIM,
    STARVED,
    bar,
    fit,
    key_cell,
    key_width,
    ms,
    wait_so_far,
)
from ckviz.tui.widgets.pane import Pane, Rows, new_text, no_match

VALUES = "  wait  out"  # the figures after each lane's bar
RATIO = 9  # the last column: right lane's wait over the left's
BETTER, WORSE = 0.8, 1.25  # ratios outside these are coloured


class WaitComparePane(Pane[Frame]):
    """Per key and lane: wait so far (the bar, counting the oldest queued run's age), runs
    out, a ✖ where the key is starved, and how many times the right lane's wait is the left's."""

    TITLE = "Per-key wait so far (oldest queued run included) · runs out · ✖ starved"

    def layout_rows(self, frame: Frame, palette: KeyPalette, width: int) -> Rows:
        snaps = frame.snapshots
        # the left lane's rows (with a `/` filter, those that match); every lane carries the
        # same ones (the app asks each the same view), and a key a lane lacks shows blank there
        keys = [row.key for row in self.key_filter.keep_rows(snaps[0].keys)]
        rows = [{k: r for k in keys if (r := snap.rows.get(k)) is not None} for snap in snaps]
        waits = [
            {k: wait_so_far(r, snap) for k, r in by.items()}
            for snap, by in zip(snaps, rows, strict=True)
        ]
        pairs = len(snaps) == 2
        # the verdict's starved (fairness.STARVED_MEANS), so a ✖ and the banner agree
        starved = [f.starved for f in frame.fairness] or [frozenset()] * len(snaps)
        key_cells = key_width(snaps[0], width // 4)
        room = width - key_cells - 1 - (RATIO if pairs else 0)
        column = max(len(VALUES) + 5, room // len(snaps))
        bar_width = column - len(VALUES) - 3
        longest = max((w or 0.0 for lane in waits for w in lane.values()), default=0.0)
        header = new_text().append(" " * (key_cells + 1))
        for snap in snaps:
            header.append(fit(snap.discipline, bar_width), BOLD)
            header.append(fit(VALUES, column - bar_width), DIM)
        if pairs:
            header.append("vs left".rjust(RATIO), DIM)

        def draw(i: int) -> Text:
            key = keys[i]
            out = new_text()
            key_cell(out, key, palette, key_cells)
            out.append(" ")
            for snap, by_key, lane, judged in zip(snaps, rows, waits, starved, strict=True):
                row = by_key.get(key)
                if row is None:
                    out.append(" " * column)
                    continue
                cells = (lane[key], longest, bar_width, key in judged)
                self._lane_cells(out, row, snap, cells, palette)
            if pairs:
                out.append(*_ratio(waits[0].get(key), waits[1].get(key), palette))
            return out

        tail = [no_match(self.key_filter)] if self.key_filter and not keys else []
        return Rows([header], len(keys), draw, tail)

    @staticmethod
    def _lane_cells(
        out: Text,
        row: KeyRow,
        snap: Snapshot,
        cells: tuple[float | None, float, int, bool],
        palette: KeyPalette,
    ) -> None:
        wait, longest, bar_width, is_starved = cells
        style = palette.starved if is_starved else palette.style(row.key)
        # The bar stops a cell short so it never runs into its number.
        bar(out, wait or 0.0, longest, bar_width - 1, style)
        out.append(" ")
        out.append(f"{ms(wait, snap.time_unit):>6}", palette.starved if is_starved else None)
        out.append(f"{row.dequeued:>5}")
        out.append(f" {STARVED} " if is_starved else "   ", palette.starved)


def _ratio(left: float | None, right: float | None, palette: KeyPalette) -> tuple[str, Style]:
    """`2.30x`-style cell: the right lane's wait over the left's, coloured past 25%."""
    if left is None or right is None:
        return "-".rjust(RATIO), DIM
    if left <= 0:
        return ("=".rjust(RATIO), DIM) if right <= 0 else ("worse".rjust(RATIO), palette.starved)
    value = right / left
    text = f"{value:.2f}x".rjust(RATIO)
    if value >= WORSE:
        return text, palette.verdict(0.0)
    if value <= BETTER:
        return text, palette.verdict(1.0)
    return text, DIM
