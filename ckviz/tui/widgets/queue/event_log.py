"""The event log pane: the latest enqueues, dequeues and acks, coloured by key; one key's
only (its story's) or some kinds only, read from the run's whole log where a frame keeps it."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.content import Content

from ckviz.model.snapshot import QueueEvent, QueueEventKind, Snapshot
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
KINDS: tuple[QueueEventKind, ...] = ("enqueue", "dequeue", "ack", "nack", "dead", "expire")
KIND_WORDS = {
    "enqueue": "a run arrives in its CK queue",
    "dequeue": "a call takes a run",
    "ack": "a run's hold ends, done",
    "nack": "a run failed: back to its queue at its retry time",
    "dead": "a run failed for the last time: dead-lettered",
    "expire": "a queued run's TTL ran out, never served",
}
KIND_GLYPH = {"enqueue": "+", "dequeue": "▶", "ack": "✓", "nack": "↺", "dead": "✗", "expire": "⌛"}
NARROW = 30  # below this many cells a line shows the kind as a glyph (help.md lists them)
CLOCK_FROM = 19  # and from this many, narrow, still the event's time


class EventLogPane(SnapshotPane):
    """As many of the latest events as fit, newest at the bottom."""

    TITLE = "Events"

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(compact=compact, id=id)
        self.only_key: str | None = None  # one key's events (its story's)
        self.kinds: frozenset[str] | None = None  # these kinds only (None: every kind)

    @property
    def narrowed(self) -> bool:
        return self.only_key is not None or self.kinds is not None

    def on_resize(self) -> None:
        if self._shown is not None:  # taller or shorter: a different number of events fits
            self.show(*self._shown)

    def shown_events(self, snapshot: Snapshot, count: int) -> list[QueueEvent]:
        """The last `count` events shown: of one key or some kinds, from the run's whole log
        where the frame keeps it (else among the recent ones), through the `/` filter."""
        key, kinds = self.only_key, self.kinds
        if self.narrowed and snapshot.log is not None:
            events = snapshot.log.last(count if not self.key_filter else 10 * count, key, kinds)
        else:
            events = [
                e
                for e in snapshot.recent
                if (key is None or e.key == key) and (kinds is None or e.kind in kinds)
            ]
        return self.key_filter.keep(events, lambda e: e.key)[-count:]

    def narrowed_to(self) -> str:
        """What the pane is narrowed to, for its title ("": every event)."""
        parts = [] if self.only_key is None else [f"{self.only_key} only"]
        if self.kinds is not None:
            parts.append(", ".join(k for k in KINDS if k in self.kinds))
        return " · ".join(parts)

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        if not self.compact:
            narrowed = self.narrowed_to()
            self.set_border_title(Content(f"{self.TITLE} · {narrowed}") if narrowed else self.TITLE)
        events = self.shown_events(snapshot, max(1, self.text_height))
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

        if not events and self.narrowed:
            return Rows([new_text().append(f"(no events: {self.narrowed_to()})", DIM)])
        if not events and self.key_filter:
            return Rows([new_text().append(f"(no recent events of /{self.key_filter.query})", DIM)])
        if not events:
            hint = "(no events yet)" if narrow else "(no events yet: space steps, p plays)"
            return Rows([new_text().append(hint, DIM)])
        return Rows((), len(events), draw)
