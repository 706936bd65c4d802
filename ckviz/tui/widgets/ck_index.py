"""The ckIndex pane: every member in Redis order, its score, true head or rescored, the scan
window and the entry the next dequeue picks."""

from __future__ import annotations

from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit, key_cell, key_width
from ckviz.tui.widgets.pane import Rows, SnapshotPane, new_text


class CkIndexPane(SnapshotPane):
    """ckIndex as the last read returned it, lowest score first."""

    TITLE = "ckIndex · Redis's order"
    COMPACT_FILLS = True

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        index = snapshot.index_read
        window = snapshot.scan_window
        rescoring = snapshot.rescores
        # The next dequeue scans ckIndex in `next_order` (after a rescore, for disciplines that
        # rescore): its window is that order's first `window` keys, its pick the first one.
        upcoming = snapshot.next_order
        scanned = set(upcoming[:window])
        pick = upcoming[0] if upcoming and window else None
        heads = {row.key: row.true_head for row in snapshot.keys}
        lowest = min((entry.score for entry in index), default=0.0)
        noun = "entry" if len(index) == 1 else "entries"
        summary = f"{len(index)} {noun} · scan window {window}"
        if window == 0:
            summary += f" ({snapshot.full or 'nothing to take'})"
        elif pick is not None:
            summary += " · ▶ next pick" + (" (after rescore)" if rescoring else "")
        if self.compact:
            summary = "ckIndex · " + summary
        head = [new_text().append(fit(summary, width), DIM)]
        keys = key_width(snapshot, width - 17)

        def draw(i: int) -> Text:
            out = new_text()
            entry = index[i]
            in_window = entry.key in scanned
            picked = entry.key == pick
            if picked:
                out.append("▶ ", BOLD)
            else:
                out.append("│ " if in_window else "  ", DIM)
            style = None if in_window else DIM
            out.append(f"{i + 1:>3} ", style)
            key_cell(out, entry.key, palette, keys, bold=picked)
            if heads.get(entry.key) == entry.score:
                out.append(fit(f" head t={entry.score - snapshot.score_base:.0f}", 13), style)
            else:
                out.append(fit(" rescored", 13), BOLD if in_window else DIM)
            # The score above the lowest one (13-digit raw scores say nothing); cut first.
            return out.append(f"+{entry.score - lowest:.0f}", DIM)

        tail: list[Text] = []
        if not index:
            tail.append(new_text().append("  (empty: nothing queued)", DIM))
        if rescoring and not self.compact:
            tail += self._rescore_note(snapshot, palette, width)
        return Rows(head, len(index), draw, tail)

    @staticmethod
    def _rescore_note(snapshot: Snapshot, palette: KeyPalette, width: int) -> list[Text]:
        lines = [new_text().append(fit(f"{snapshot.discipline} rescores all before it dequeues;",
                                       width), DIM)]  # fmt: skip
        note = new_text()
        if snapshot.index_rescored:
            note.append("last rescore: ", DIM)
            for n, entry in enumerate(snapshot.index_rescored[:8]):
                note.append(" < " if n else "", DIM)
                note.append(entry.key, palette.style(entry.key))
        else:
            note.append("it picks the key it ranks first (see Discipline)", DIM)
        lines.append(note)
        return lines
