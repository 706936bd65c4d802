"""The `why` view: every candidate the last call ranked, the winner, the runner-up and why it
lost, for each lane on show (ckviz.tui.why reads them from the snapshot)."""

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
from ckviz.tui.why import why_lines


class WhyScreen(ModalScreen[None]):
    """Why each lane's last call picked what it picked; esc (or enter) closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="why.close"),
    ]

    def __init__(self, snapshots: tuple[Snapshot, ...], palette: KeyPalette) -> None:
        super().__init__()
        self.snapshots = snapshots
        self.palette = palette

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="why") as box:
            box.border_title = "why this pick · esc closes"
            text = Text()
            for n, snapshot in enumerate(self.snapshots):
                if n:
                    text.append("\n\n")
                text.append_text(Text("\n").join(why_lines(snapshot, self.palette)))
            yield Static(text, id="why-text")  # Static wraps at the box's width: never cut

    def action_close(self) -> None:
        self.dismiss(None)
