"""The share view (`h`): each lane's served share over time, as stacked columns in the keys'
colours (ckviz.tui.shares makes the lines)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.shares import chart_lines, share_chart
from ckviz.tui.text import DIM


class ShareScreen(ModalScreen[None]):
    """Served share over time, lane by lane; esc (or h) closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q,h", "close", "Close", id="shares.close"),
    ]

    def __init__(self, snapshots: tuple[Snapshot, ...], palette: KeyPalette) -> None:
        super().__init__()
        self.snapshots = snapshots
        self.palette = palette

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="shares") as box:
            box.border_title = "served share over time · esc closes"
            text = Text()
            for n, snapshot in enumerate(self.snapshots):
                if n:
                    text.append("\n\n")
                chart = share_chart(snapshot)
                if chart is None:
                    text.append(f"{snapshot.discipline}: no history kept for this frame", DIM)
                else:
                    text.append_text(Text("\n").join(chart_lines(chart, self.palette)))
            yield Static(text, id="shares-text")

    def action_close(self) -> None:
        self.dismiss(None)
