"""The consumers line of the discipline pane: who calls next and what each consumer's calls
took so far (only with several consumers; read from the snapshot like every pane)."""

from __future__ import annotations

from rich.text import Text

from ckviz.model.snapshot import Snapshot
from ckviz.tui.text import BOLD, DIM


def consumers_line(snapshot: Snapshot) -> Text | None:
    """`consumers c1 98/204 c2 108/209 (runs/calls) · next c2`, the figures first so a narrow
    pane cuts the words, not them; the next one's in bold (a client-side discipline's state
    above is that consumer's own). None with one consumer."""
    if len(snapshot.consumers) < 2:
        return None
    out = Text(no_wrap=True, overflow="ellipsis", end="").append("consumers", DIM)
    for c in snapshot.consumers:
        out.append(f" {c.name} ", DIM)
        out.append(f"{c.dequeued}/{c.calls}", BOLD if c.name == snapshot.next_consumer else "")
    out.append(" (runs/calls)", DIM)
    if snapshot.next_consumer is not None:
        out.append(" · next ", DIM).append(snapshot.next_consumer, BOLD)
    return out
