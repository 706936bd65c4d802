"""The event log pane: the latest enqueues, dequeues and acks, coloured by key."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit
from ckviz.tui.widgets.pane import Rows, SnapshotPane, new_text

KIND_STYLE = {
    "enqueue": DIM,
    "dequeue": BOLD,
    "ack": Style(italic=True, dim=True),
    # the run lifecycle (docs/lifecycle.md): a nack back to its retry score, a dead letter,
    # an expiry (by the TTL sweep, or a dequeue dropping an expired head)
    "nack": Style(italic=True),
    "dead": Style(bold=True, italic=True),
    "expire": Style(italic=True),
}
KIND_GLYPH = {"enqueue": "+", "dequeue": "▶", "ack": "✓", "nack": "↺", "dead": "✗", "expire": "⌛"}
NARROW = 30  # below this many cells a line shows the kind as a glyph (help.md lists them)
CLOCK_FROM = 19  # and from this many, narrow, still the event's time


class EventLogPane(SnapshotPane):
    """As many of the latest events as fit, newest at the bottom."""

    TITLE = "Events"

    def on_resize(self) -> None:
        if self._shown is not None:  # taller or shorter: a different number of events fits
            self.show(*self._shown)

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        events = self.key_filter.keep(snapshot.recent, lambda e: e.key)[-max(1, self.text_height) :]
        narrow = width < NARROW
        clock = 6 if not narrow else 5 if width >= CLOCK_FROM else 0
        kind_width = 2 if narrow else 8
        run_width = max(4, width - clock - kind_width - (2 if clock else 0))

        def draw(i: int) -> Text:
            event = events[i]
            out = new_text()
            if clock:
                out.append(f"{event.t:>{clock}} ", DIM)
            kind = KIND_GLYPH[event.kind] if narrow else event.kind
            out.append(f"{kind:<{kind_width}}", KIND_STYLE[event.kind])
            if event.by is None:
                return out.append(fit(event.run_id, run_width), palette.style(event.key))
            # a mixed rollout's call names its consumer and discipline, then the run
            by = f"{event.by} "
            out.append(fit(by, min(len(by), run_width)), BOLD)
            return out.append(fit(event.run_id, run_width - len(by)), palette.style(event.key))

        if not events and self.key_filter:
            return Rows([new_text().append(f"(no recent events of /{self.key_filter.query})", DIM)])
        if not events:
            hint = "(no events yet)" if narrow else "(no events yet: space steps, p plays)"
            return Rows([new_text().append(hint, DIM)])
        return Rows((), len(events), draw)
