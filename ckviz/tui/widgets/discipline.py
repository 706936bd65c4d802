"""The discipline pane: its chosen order, best first, and the per-key state behind it."""

from __future__ import annotations

from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit, key_cell
from ckviz.tui.widgets.pane import SnapshotPane, new_text, rescores

MAX_ROWS = 300


def _pairs(values: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    # Some disciplines pad their per-key tuples with empty entries; keep real (label, value)s.
    return [v for v in values if len(v) == 2]


class DisciplinePane(SnapshotPane):
    """Global fields, then each key in the discipline's order with its state."""

    TITLE = "Discipline"

    def render_shown(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Text:
        out = new_text()
        state = snapshot.discipline_state
        out.append(state.name, BOLD)
        for label, value in _pairs(state.fields):
            out.append(f" · {label} ", DIM)
            out.append(value)
        which = "last order" if rescores(snapshot.discipline) else "next order"
        if self.compact:
            out.append(f"\n{which}: ", DIM)
            for n, key in enumerate(snapshot.order[:12]):
                out.append(" > " if n else "", DIM)
                out.append(key, palette.style(key))
            return out
        per_key = {key: _pairs(values) for key, values in state.per_key}
        out.append(f"\n{which}, best first:", DIM)
        key_width = max(6, min(14, width // 3))
        listed = list(dict.fromkeys(snapshot.order))
        idle = [key for key in per_key if key not in set(listed)]
        for rank, key in enumerate([*listed, *idle][:MAX_ROWS]):
            out.append("\n" + (f"{rank + 1:>3} " if rank < len(listed) else "  - "), DIM)
            key_cell(out, key, palette, key_width, bold=rank == 0)
            details = "  ".join(f"{label} {value}" for label, value in per_key.get(key, []))
            out.append(" " + fit(details, width - key_width - 5).rstrip())
        if not listed and not idle:
            out.append("\n  (nothing queued)", DIM)
        return out
