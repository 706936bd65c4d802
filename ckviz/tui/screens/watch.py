"""The watch's screen: a live queue in the same panes a simulated run is drawn in (ckIndex, the
per-key queues, the held slots, the discipline), under the watch's own status line."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from ckviz.player.frames import Frame
from ckviz.tui.palette import KeyPalette
from ckviz.tui.screens.lane_screen import BREAKPOINTS
from ckviz.tui.screens.queue_panes import queue_panes
from ckviz.tui.widgets.bars.watch_status import WatchControls, WatchStatus
from ckviz.tui.widgets.pane import snapshot_panes_in


class WatchScreen(Screen[None]):
    """ckIndex and the per-key queues on top; held slots and the discipline below."""

    HORIZONTAL_BREAKPOINTS = BREAKPOINTS
    AUTO_FOCUS = ""  # the watch's keys work from the start

    def compose(self) -> ComposeResult:
        yield WatchStatus(id="status")
        yield from queue_panes()
        yield Footer()

    def show(self, frame: Frame, palette: KeyPalette, controls: WatchControls) -> None:
        """Draw the frame's one lane in every pane, as the simulated app's screens do."""
        snapshot = frame.snapshots[0]
        with self.app.batch_update():
            self.query_one(WatchStatus).show(frame, controls)
            for pane in snapshot_panes_in(self):
                pane.show(snapshot, palette)

    def show_controls(self, frame: Frame, controls: WatchControls) -> None:
        self.query_one(WatchStatus).show(frame, controls)

    def show_error(self, error: str) -> None:
        """No picture yet, and the read failed: the status line says why."""
        self.query_one(WatchStatus).show_error(error)
