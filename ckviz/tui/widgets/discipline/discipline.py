"""The discipline pane: its chosen order, best first, and the per-key state behind it."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ckviz.model.names import natural_key
from ckviz.model.queue import PaneLine, Shown
from ckviz.model.snapshot import Snapshot
from ckviz.tui.decision import this_step
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, key_cell, key_width, number
from ckviz.tui.why import wrapped
from ckviz.tui.widgets.discipline.consumers import consumers_line
from ckviz.tui.widgets.pane import Rows, SnapshotPane, new_text, no_match


def _pairs(values: tuple[tuple[str, Shown], ...]) -> list[tuple[str, str]]:
    # Keep only real (label, value) pairs, whatever padding a discipline adds.
    return [(v[0], number(v[1])) for v in values if len(v) == 2]


SERVED = Style(bold=True)


def drawn(lines: list[PaneLine], palette: KeyPalette) -> list[Text]:
    """A discipline's own lines, each piece in its ink (a key in its colour)."""
    inks = {"plain": None, "bold": BOLD, "dim": DIM}
    out = []
    for line in lines:
        text = new_text()
        for piece, ink in line:
            if ink == "key":
                text.append(piece, palette.style(piece))
            elif ink == "served":
                text.append(piece, palette.style(piece) + SERVED)
            else:
                text.append(piece, inks[ink])
        out.append(text)
    return out


class DisciplinePane(SnapshotPane):
    """Global fields, then each key in the discipline's order with its state."""

    TITLE = "Discipline"

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        state = snapshot.discipline_state
        now = wrapped(this_step(snapshot, palette), width)  # at 80 columns too: never cut
        fields = new_text().append(state.name, BOLD)
        for label, value in _pairs(state.fields):
            fields.append(f" · {label} ", DIM)
            fields.append(value)
        # The order the next dequeue will follow (the discipline's pure preview); once
        # nothing is queued, the last order it chose.
        chosen = snapshot.next_order or snapshot.order
        which = "next order" if snapshot.next_order else "last order"
        # a discipline whose state lives in Redis shows it as read back, in its own lines
        extra = [] if state.detail is None else drawn(state.detail.pane_lines(), palette)
        # several consumers: who calls next and what each one's calls got
        head = [*now, fields] + [line for line in [consumers_line(snapshot)] if line is not None]
        if self.compact:
            order = new_text().append(f"{which}: ", DIM)
            for n, key in enumerate(self.key_filter.keep(chosen, str)[:12]):
                order.append(" > " if n else "", DIM)
                order.append(key, palette.style(key))
            return Rows([*head, order, *extra])
        per_key = {key: _pairs(values) for key, values in state.per_key}
        listed = list(dict.fromkeys(chosen))
        in_order = set(listed)
        ranked = listed + sorted((k for k in per_key if k not in in_order), key=natural_key)
        keys = key_width(snapshot, width - 14)
        # `/`: only matching keys, each keeping its rank in the discipline's order
        shown = (
            [r for r, k in enumerate(ranked) if self.key_filter.matches(k)]
            if self.key_filter
            else None
        )

        def draw(row: int) -> Text:
            rank = row if shown is None else shown[row]
            key = ranked[rank]
            out = new_text().append(f"{rank + 1:>3} " if rank < len(listed) else "  - ", DIM)
            key_cell(out, key, palette, keys, bold=rank == 0)
            details = "  ".join(f"{label} {value}" for label, value in per_key.get(key, []))
            return out.append(" " + details)

        head.append(new_text().append(f"{which}, best first:", DIM))
        tail = [] if ranked else [new_text().append("  (nothing queued)", DIM)]
        if ranked and shown == []:
            tail = [no_match(self.key_filter)]
        count = len(ranked) if shown is None else len(shown)
        return Rows(head, count, draw, tail + extra)
