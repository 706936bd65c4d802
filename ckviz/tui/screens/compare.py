"""Compare mode: two disciplines on the same workload, compact panes side by side."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ckviz.fairness_so_far import SoFar
from ckviz.model.snapshot import Snapshot
from ckviz.player.frames import Frame
from ckviz.player.player import Player
from ckviz.tui.bindings import bindings
from ckviz.tui.palette import KeyPalette
from ckviz.tui.screens.lane_screen import LaneScreen
from ckviz.tui.screens.shares import charts_follow
from ckviz.tui.text import BOLD, DIM, Part, fitted
from ckviz.tui.verdict import verdict_line
from ckviz.tui.widgets.bars.filter_bar import FilterBar
from ckviz.tui.widgets.bars.footer import ContextFooter
from ckviz.tui.widgets.bars.legend import Legend
from ckviz.tui.widgets.bars.status import JAIN, Controls, StatusBar, fairness_parts
from ckviz.tui.widgets.compare.wait_cdf import WaitCdfPane
from ckviz.tui.widgets.compare.wait_compare import WaitComparePane
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.pane import snapshot_panes_in
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from ckviz.tui.widgets.queue.key_strip import KeyStripPane

LANES = 2
BOTTOM_SHARE = 0.27  # of the screen's height for the waits and event logs, at least...
BOTTOM_MAX = 0.4  # ...and at most, whatever the key count
WIDE = 140  # columns from which the wait table and the wait CDF both show (else `w` swaps)


class LaneView(Vertical):
    """One lane's compact panes under a header with its clock and fairness."""

    def compose(self) -> ComposeResult:
        yield Static(classes="lane-header")
        yield HeldSlotsPane(compact=True)
        yield KeyQueuesPane(compact=True)
        yield DisciplinePane(compact=True)
        yield CkIndexPane(compact=True)
        yield KeyStripPane(compact=True)  # keys over time: a starved key's long shaded run

    def show(self, index: int, frame: Frame, palette: KeyPalette) -> None:
        snapshot = frame.snapshots[index]
        self.border_title = snapshot.discipline
        place = self.query_one(".lane-header", Static)
        header = lane_header(snapshot, frame.fairness[index], palette, place.size.width or None)
        place.update(header, layout=False)
        strip = self.query_one(KeyStripPane)
        strip.light_key = frame.setup.light_key
        strip.worst_key = frame.fairness[index].underserved
        for pane in snapshot_panes_in(self):
            pane.show(snapshot, palette)


RUNS_OUT = JAIN + 1  # a lane header's runs out go before its Jain


def lane_header(
    snapshot: Snapshot, fairness: SoFar, palette: KeyPalette, width: int | None = None
) -> Text:
    """`t=500ms · 67/300 · under-served heavy 0.97 · Jain 1.00`, fitted to `width` as the
    status line is: the runs out go first, then Jain; the lane's verdict stays."""
    unit, t = snapshot.time_unit, snapshot.t
    when = Text("t=" if unit == "ms" else f"{unit} ", DIM)
    when.append(f"{t}ms" if unit == "ms" else str(t), BOLD)
    out = Text(f" · {snapshot.dequeued}/{snapshot.total_runs}", DIM)
    parts = [Part(0, when), Part(RUNS_OUT, out), Part(0, Text(" · ", DIM))]
    parts += [Part(p.priority, p.short or p.text) for p in fairness_parts(fairness, palette, None)]
    line = Text(no_wrap=True, overflow="ellipsis", end="")
    return line.append_text(fitted(parts, width))


class CompareScreen(LaneScreen):
    """Two LaneViews in lockstep; below them the per-key wait comparison between each
    lane's event log (left lane's on the left; narrow, the logs give way to the waits)."""

    BINDINGS: ClassVar[list[BindingType]] = [*bindings("compare")]

    def __init__(self, player: Player) -> None:
        super().__init__(player)
        self._keys = 0
        self._cdf_first = False  # narrow: the CDF shows in place of the wait table

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Static(id="verdict")  # which lane is fairer, by how much, in one line
        with Horizontal(id="lanes"):
            for i in range(LANES):
                yield LaneView(id=f"lane-{i}", classes="lane")
        with Horizontal(id="compare-bottom"):
            yield EventLogPane(id="events-0")
            yield WaitComparePane(id="waits")
            yield WaitCdfPane(id="cdf")
            yield EventLogPane(id="events-1")
        yield Legend()
        yield FilterBar()
        yield ContextFooter(compact=True, show_command_palette=True)

    def show(self, frame: Frame, palette: KeyPalette, controls: Controls) -> None:
        with self.app.batch_update():
            if len(frame.snapshots[0].keys) != self._keys:
                self._keys = len(frame.snapshots[0].keys)
                self._fit_bottom()
            self.query_one(StatusBar).show(frame, controls, palette)
            banner = self.query_one("#verdict", Static)
            room = banner.content_region.width or self.size.width
            banner.update(verdict_line(frame, palette, room), layout=False)
            for i in range(min(LANES, len(frame.snapshots))):
                self.query_one(f"#lane-{i}", LaneView).show(i, frame, palette)
                log = self.query_one(f"#events-{i}", EventLogPane)
                log.border_subtitle = frame.snapshots[i].discipline
                log.show(frame.snapshots[i], palette)
            self.query_one(WaitComparePane).show(frame, palette)
            self.query_one(WaitCdfPane).show(frame, palette)
            charts_follow(self.app, frame)

    def on_resize(self) -> None:
        self._fit_bottom()
        self._place_waits()

    def on_mount(self) -> None:
        self._place_waits()

    def action_swap_waits(self) -> None:
        """Narrow, the wait table and the CDF share one place: show the other one."""
        self._cdf_first = not self._cdf_first
        self._place_waits()

    def _place_waits(self) -> None:
        wide = self.size.width >= WIDE
        self.query_one(WaitComparePane).display = wide or not self._cdf_first
        self.query_one(WaitCdfPane).display = wide or self._cdf_first

    def _fit_bottom(self) -> None:
        """Room for every key's wait row (within BOTTOM_MAX), more on a tall screen."""
        height = self.size.height
        wanted = max(self._keys + 3, round(height * BOTTOM_SHARE))
        rows = max(4, min(wanted, int(height * BOTTOM_MAX)))
        bottom = self.query_one("#compare-bottom")
        if bottom.styles.height is None or bottom.styles.height.value != rows:
            bottom.styles.height = rows

    def show_controls(self, frame: Frame, controls: Controls, palette: KeyPalette) -> None:
        # the progress timer can tick while the app quits and the bar is already removed
        for bar in self.query(StatusBar):
            bar.show(frame, controls, palette)
