"""The event log pane: the latest enqueues, dequeues and acks, coloured by key."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit
from ckviz.tui.widgets.pane import Rows, SnapshotPane, new_text

KIND_STYLE = {"enqueue": DIM, "dequeue": BOLD, "ack": Style(italic=True, dim=True)}


class EventLogPane(SnapshotPane):
    """As many of the latest events as fit, newest at the bottom."""

    TITLE = "Events"

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        events = snapshot.recent[-max(1, self.text_height) :]
        run_width = max(8, width - 16)

        def draw(i: int) -> Text:
            event = events[i]
            out = new_text().append(f"{event.t:>6} ", DIM)
            out.append(f"{event.kind:<8}", KIND_STYLE[event.kind])
            return out.append(fit(event.run_id, run_width), palette.style(event.key))

        if not events:
            return Rows([new_text().append("(no events yet: space steps, p plays)", DIM)])
        return Rows((), len(events), draw)
