"""Compare mode: two disciplines on the same workload, compact panes side by side."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from ckviz.tui.lanes import Fairness, Frame
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM
from ckviz.tui.widgets.ck_index import CkIndexPane
from ckviz.tui.widgets.discipline import DisciplinePane
from ckviz.tui.widgets.held_slots import HeldSlotsPane
from ckviz.tui.widgets.key_queues import KeyQueuesPane
from ckviz.tui.widgets.pane import SnapshotPane
from ckviz.tui.widgets.status import Controls, StatusBar, fairness_text
from ckviz.tui.widgets.wait_compare import WaitComparePane

LANES = 2


class LaneView(Vertical):
    """One lane's compact panes under a header with its clock and fairness."""

    def compose(self) -> ComposeResult:
        yield Static(classes="lane-header")
        yield HeldSlotsPane(compact=True)
        yield KeyQueuesPane(compact=True)
        yield DisciplinePane(compact=True)
        yield CkIndexPane(compact=True)

    def show(self, index: int, frame: Frame, palette: KeyPalette) -> None:
        snapshot = frame.snapshots[index]
        self.border_title = snapshot.discipline
        header = lane_header(snapshot.t, snapshot.dequeued, snapshot.total_runs,
                             frame.fairness[index])  # fmt: skip
        self.query_one(".lane-header", Static).update(header, layout=False)
        for pane in self.query(SnapshotPane):
            pane.show(snapshot, palette)


def lane_header(t: int, dequeued: int, total: int, fairness: Fairness) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis", end="")
    out.append("t=", DIM)
    out.append(f"{t}ms", BOLD)
    out.append(f" · {dequeued}/{total} · ", DIM)
    fairness_text(out, fairness, dequeued, short=True)
    return out


class CompareScreen(Screen[None]):
    """Two LaneViews in lockstep and the per-key wait comparison below them."""

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="lanes"):
            for i in range(LANES):
                yield LaneView(id=f"lane-{i}", classes="lane")
        yield WaitComparePane(id="waits")
        yield Footer(compact=True, show_command_palette=False)

    def show(self, frame: Frame, palette: KeyPalette, controls: Controls) -> None:
        with self.app.batch_update():
            self.query_one(StatusBar).show(frame, controls, palette)
            for i in range(min(LANES, len(frame.snapshots))):
                self.query_one(f"#lane-{i}", LaneView).show(i, frame, palette)
            self.query_one(WaitComparePane).show(frame, palette)

    def show_controls(self, frame: Frame, controls: Controls, palette: KeyPalette) -> None:
        self.query_one(StatusBar).show(frame, controls, palette)
