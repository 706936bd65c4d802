"""The ckIndex pane: every member in Redis order, its score, true head or rescored, the scan
window and the entry the next dequeue picks."""

from __future__ import annotations

from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit, key_cell
from ckviz.tui.widgets.pane import SnapshotPane, new_text, rescores

COMPACT_ROWS = 5
MAX_ROWS = 500


class CkIndexPane(SnapshotPane):
    """ckIndex as the last read returned it, lowest score first."""

    TITLE = "ckIndex"

    def render_shown(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Text:
        out = new_text()
        index = snapshot.index_read
        window = snapshot.scan_window
        rescoring = rescores(snapshot.discipline)
        heads = {row.key: row.true_head for row in snapshot.keys}
        summary = f"{len(index)} {'entry' if len(index) == 1 else 'entries'} · scan window {window}"
        if window == 0:
            summary += " (env full)"
        if self.compact:
            summary = "ckIndex · " + summary
        out.append(fit(summary, width) + "\n", DIM)
        key_width = max(6, min(16, width - 34))
        limit = max(window, COMPACT_ROWS) if self.compact else MAX_ROWS
        for i, entry in enumerate(index[:limit]):
            in_window = i < window
            picked = i == 0 and in_window and not rescoring
            if picked:
                out.append("▶ ", BOLD)
            else:
                out.append("│ " if in_window else "  ", DIM)
            style = None if in_window else DIM
            out.append(f"{i + 1:>3} ", style)
            key_cell(out, entry.key, palette, key_width, bold=picked)
            out.append(f" {entry.score:>13.0f} ", style)
            if heads.get(entry.key) == entry.score:
                out.append(f"head t={entry.score - snapshot.score_base:.0f}", style)
            else:
                out.append("rescored", BOLD if in_window else DIM)
            if picked and width >= key_width + 44:
                out.append("  ← next pick", BOLD)
            out.append("\n")
        if len(index) > limit:
            out.append(f"  … {len(index) - limit} more\n", DIM)
        if not index:
            out.append("  (empty: nothing queued)\n", DIM)
        if rescoring and not self.compact:
            out.append(self._rescore_note(snapshot, palette, width))
        out.rstrip()
        return out

    @staticmethod
    def _rescore_note(snapshot: Snapshot, palette: KeyPalette, width: int) -> Text:
        note = new_text()
        note.append(fit(f"{snapshot.discipline} rescores every entry before it dequeues;", width),
                    DIM)  # fmt: skip
        note.append("\n")
        if snapshot.index_rescored:
            note.append("last rescore wrote: ", DIM)
            for n, entry in enumerate(snapshot.index_rescored[:8]):
                note.append(" < " if n else "", DIM)
                note.append(entry.key, palette.style(entry.key))
        else:
            note.append("the pick is the key it ranks first (see Discipline)", DIM)
        return note
