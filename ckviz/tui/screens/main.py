"""Single mode: one discipline, every pane."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType

from ckviz.player.frames import Frame
from ckviz.tui.bindings import bindings
from ckviz.tui.palette import KeyPalette
from ckviz.tui.screens.lane_screen import LaneScreen
from ckviz.tui.screens.queue_panes import queue_panes
from ckviz.tui.screens.shares import charts_follow
from ckviz.tui.widgets.bars.filter_bar import FilterBar
from ckviz.tui.widgets.bars.footer import ContextFooter
from ckviz.tui.widgets.bars.legend import Legend
from ckviz.tui.widgets.bars.status import Controls, StatusBar
from ckviz.tui.widgets.pane import snapshot_panes_in
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.key_strip import KeyStripPane


class MainScreen(LaneScreen):
    """ckIndex and per-key queues on top; held slots, discipline and events below; the keys
    over time at the bottom. On a narrow terminal, one pane under the other, full width,
    scrolling (focusing one shows it)."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings("single")]

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield from queue_panes([EventLogPane(id="events")], [KeyStripPane(id="strip")])
        yield Legend()
        yield FilterBar()
        yield ContextFooter(compact=True, show_command_palette=True)

    def show(self, frame: Frame, palette: KeyPalette, controls: Controls) -> None:
        """Draw the first lane of `frame` in every pane."""
        snapshot = frame.snapshots[0]
        with self.app.batch_update():
            strip = self.query_one(KeyStripPane)
            strip.light_key = frame.setup.light_key
            strip.worst_key = frame.fairness[0].underserved
            self.query_one(StatusBar).show(frame, controls, palette)
            for pane in snapshot_panes_in(self):
                pane.show(snapshot, palette)
            charts_follow(self.app, frame)

    def show_controls(self, frame: Frame, controls: Controls, palette: KeyPalette) -> None:
        # the progress timer can tick while the app quits and the bar is already removed
        for bar in self.query(StatusBar):
            bar.show(frame, controls, palette)
