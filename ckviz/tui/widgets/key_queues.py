"""The per-key queues pane: queue depth as a bar, runs to arrive, dequeued, head age, and the
wait so far (the served runs' and the oldest queued run's)."""

from __future__ import annotations

from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import DIM, bar, fit, head_age, key_cell, key_width, ms, wait_so_far
from ckviz.tui.widgets.pane import Rows, SnapshotPane, new_text

MIN_BAR = 6  # below this many cells for the bar, the arrive column makes room


class KeyQueuesPane(SnapshotPane):
    """One row per key, in the scenario's order."""

    TITLE = "Per-key queues"

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        rows = snapshot.keys
        keys = key_width(snapshot, width // 3)
        numbers = [("queued", 7), ("out", 5), ("age", 7), ("wait", 7)]
        if not self.compact and width - keys - 1 - sum(w for _, w in numbers) >= 7 + MIN_BAR:
            numbers.insert(1, ("arrive", 7))  # the least telling column: the first to go
        bar_width = max(4, width - keys - 1 - sum(w for _, w in numbers))
        header = new_text().append(fit("key", keys + 1) + fit("queue", bar_width), DIM)
        for label, w in numbers:
            header.append(label.rjust(w), DIM)
        deepest = max((r.queued for r in rows), default=0)

        def draw(i: int) -> Text:
            row = rows[i]
            out = new_text()
            key_cell(out, row.key, palette, keys)
            out.append(" ")
            bar(out, row.queued, deepest, bar_width - 1, palette.style(row.key))
            out.append(" ")  # the bar never runs into the first number
            values = {
                "queued": str(row.queued),
                "arrive": str(row.to_arrive),
                "out": str(row.dequeued),
                "age": ms(head_age(row, snapshot)),
                "wait": ms(wait_so_far(row, snapshot)),
            }
            for label, w in numbers:
                out.append(values[label].rjust(w))
            return out

        return Rows([header], len(rows), draw)
