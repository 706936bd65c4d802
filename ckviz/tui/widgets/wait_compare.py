"""Compare mode's per-key wait comparison: each key's waits under each discipline."""

from __future__ import annotations

from rich.text import Text

from ckviz.lanes import Frame
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, bar, fit, head_age, key_cell, key_width, ms
from ckviz.tui.widgets.pane import Pane, Rows, new_text

VALUES = " mean  out    age"  # the figures after each lane's bar


class WaitComparePane(Pane[Frame]):
    """Per key and lane: mean wait so far (the bar), runs out, and the head's age now."""

    TITLE = "Per-key wait: mean so far (bar) · runs out · oldest run's age"

    def layout_rows(self, frame: Frame, palette: KeyPalette, width: int) -> Rows:
        snaps = frame.snapshots
        keys = [row.key for row in snaps[0].keys]
        rows = [{row.key: row for row in snap.keys} for snap in snaps]
        key_cells = key_width(snaps[0], width // 4)
        column = max(len(VALUES) + 4, (width - key_cells - 1) // len(snaps))
        bar_width = column - len(VALUES) - 2
        longest = max((r.mean_wait_ms or 0.0 for by_key in rows for r in by_key.values()),
                      default=0.0)  # fmt: skip
        header = new_text().append(" " * (key_cells + 1))
        for snap in snaps:
            if len(snap.discipline) >= bar_width:  # narrow: the name over the whole column
                header.append(fit(snap.discipline, column), BOLD)
                continue
            header.append(fit(snap.discipline, bar_width), BOLD)
            header.append(VALUES + "  ", DIM)

        def draw(i: int) -> Text:
            key = keys[i]
            out = new_text()
            key_cell(out, key, palette, key_cells)
            out.append(" ")
            for snap, by_key in zip(snaps, rows, strict=True):
                row = by_key[key]
                bar(out, row.mean_wait_ms or 0.0, longest, bar_width, palette.style(key))
                age = head_age(row, snap)
                out.append(f"{ms(row.mean_wait_ms):>6}{row.dequeued:>5}{ms(age):>7}  ")
            return out

        return Rows([header], len(keys), draw)
