"""The status line: scenario, seed, discipline(s), time, progress, fairness so far, controls."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ckviz.lanes import Fairness, Frame
from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, head_age, ms, ratio

STEPPING = "⋯ stepping"


@dataclass(frozen=True, slots=True)
class Controls:
    """What the app is doing, for the status line."""

    playing: bool = False
    speed: int = 1
    replay: tuple[int, int] | None = None  # (shown, recorded) while stepping back
    error: str | None = None
    stepping: bool = False  # a driver job is in flight: its frame has not arrived yet


def longest_wait(snapshot: Snapshot) -> tuple[str, float] | None:
    """The key whose oldest queued run has waited longest right now, and for how long."""
    ages = [(age, row.key) for row in snapshot.keys if (age := head_age(row, snapshot)) is not None]
    if not ages:
        return None
    age, key = max(ages)
    return key, age


def fairness_text(out: Text, fairness: Fairness, dequeued: int, short: bool = False) -> None:
    out.append("worst " if short else "worst share/weight ", DIM)
    out.append(ratio(fairness.worst_share), BOLD)
    out.append(" · Jain ", DIM)
    out.append(ratio(fairness.jain), BOLD)
    if fairness.as_of != dequeued:
        out.append(f" (at {fairness.as_of} runs)", DIM)


class StatusBar(Static):
    """Two lines at the top of each mode."""

    def show(self, frame: Frame, controls: Controls, palette: KeyPalette) -> None:
        self.set_class(controls.error is not None, "-error")
        self.text = self.render_frame(frame, controls, palette)
        self.update(self.text, layout=False)  # always two lines: no layout pass needed

    @staticmethod
    def render_frame(frame: Frame, controls: Controls, palette: KeyPalette) -> Text:
        setup, snaps = frame.setup, frame.snapshots
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        out.append(f" {setup.scenario.name}", BOLD)
        out.append(" · seed ", DIM)
        out.append(setup.seed)
        out.append(" · ", DIM)
        out.append(" vs ".join(s.discipline for s in snaps), BOLD)
        out.append(" · t=", DIM)
        out.append("/".join(str(s.t) for s in snaps) + "ms")
        if len(snaps) == 1:
            snap = snaps[0]
            out.append(f" · step {snap.step} · ", DIM)
            out.append(f"{snap.dequeued}/{snap.total_runs}")
            out.append(" runs out · ", DIM)
            out.append(f"{len(snap.held)}/{snap.env_limit}")
            out.append(" slots held", DIM)
        out.append("\n ")
        if controls.error is not None:
            out.append(f"✖ {controls.error}", BOLD)
            out.append("  (r restarts, q quits)", DIM)
            return out
        if len(snaps) == 1:
            fairness_text(out, frame.fairness[0], snaps[0].dequeued)
            if (oldest := longest_wait(snaps[0])) is not None:
                out.append(" · longest wait ", DIM)
                out.append(oldest[0], palette.style(oldest[0]))
                out.append(f" {ms(oldest[1])}")
            out.append("  │ ", DIM)
        else:
            out.append("lockstep: a lane ahead in logical time waits │ ", DIM)
        if frame.done:
            out.append("■ done", BOLD)
        elif controls.playing:
            out.append(f"▶ playing, speed {controls.speed}", BOLD)
        else:
            out.append(f"paused, speed {controls.speed}", DIM)
        if controls.replay is not None:
            shown, recorded = controls.replay
            out.append(f" │ replay {shown}/{recorded}", BOLD)
        if controls.stepping:
            out.append(f" │ {STEPPING}", BOLD)
        return out
