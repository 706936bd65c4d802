"""The panes a queue is drawn in, laid out once for the app's main screen and the watch's:
ckIndex and the per-key queues on top, held slots and the discipline below."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget

from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane


def queue_panes(beside: Iterable[Widget] = (), under: Iterable[Widget] = ()) -> ComposeResult:
    """The queue's panes (`beside`: more in the bottom row, `under`: more below it), in a
    scroll that stacks them full width below NARROW columns (ckviz.tcss)."""
    with VerticalScroll(id="panes", can_focus=False):
        with Horizontal(id="top"):
            yield CkIndexPane(id="ckindex")
            yield KeyQueuesPane(id="queues")
        with Horizontal(id="bottom"):
            yield HeldSlotsPane(id="held")
            yield DisciplinePane(id="discipline")
            yield from beside
        yield from under
