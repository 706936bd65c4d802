"""The share view (`h`): each lane's served share over time, as stacked columns in the keys'
colours (ckviz.tui.shares makes the lines). Open, it follows the frames shown (playing, a
step, a long move's end, the scrubber), as the panes under it do."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ckviz.model.snapshot import Snapshot
from ckviz.player.frames import Frame
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
            yield Static(self._charts(), id="shares-text")

    def follow(self, snapshots: tuple[Snapshot, ...]) -> None:
        """Draw the charts of the frame now shown (the same frame: nothing to do)."""
        if snapshots is self.snapshots:
            return
        self.snapshots = snapshots
        for text in self.query("#shares-text").results(Static):
            text.update(self._charts())

    def _charts(self) -> Text:
        text = Text()
        for n, snapshot in enumerate(self.snapshots):
            if n:
                text.append("\n\n")
            chart = share_chart(snapshot)
            if chart is None:
                text.append(f"{snapshot.discipline}: no history kept for this frame", DIM)
            else:
                text.append_text(Text("\n").join(chart_lines(chart, self.palette)))
        return text

    def action_close(self) -> None:
        self.dismiss(None)


def charts_follow(app: App[Any], frame: Frame) -> None:
    """An open share view draws `frame`, the frame the screen under it now shows."""
    for screen in app.screen_stack:
        if isinstance(screen, ShareScreen):
            screen.follow(frame.snapshots)
