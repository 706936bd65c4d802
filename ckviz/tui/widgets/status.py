"""The status line: scenario, seed, discipline(s), time, progress, fairness so far (the most
under-served key by fair-share attainment, over the same dequeues as the key table), controls."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ckviz.model.history import Trend
from ckviz.tui.lanes import Fairness, Frame
from ckviz.tui.palette import KeyPalette
from ckviz.tui.sparkline import sparkline
from ckviz.tui.text import BOLD, DIM, longest_wait, ms, ratio

STEPPING = "⋯ stepping"
TREND = 8  # cells of each fairness sparkline on the status line
RUNNING = "⋯ running to the end (esc stops)"
SLOWER = 0.9  # play going slower than this share of the speed asked shows what it makes


@dataclass(frozen=True, slots=True)
class Controls:
    """What the app is doing, for the status line."""

    playing: bool = False
    speed: int = 1
    replay: tuple[int, int] | None = None  # (shown, recorded) frames while stepping back
    error: str | None = None
    stepping: bool = False  # a driver job is in flight: its frame has not arrived yet
    instants_per_s: float = 1.0  # what `speed` means: logical instants played a second
    running_to_end: bool = False  # a run to the end is in flight (esc stops it)
    achieved: float | None = None  # instants a second play really made lately (None: unknown)


def fairness_text(
    out: Text,
    fairness: Fairness,
    palette: KeyPalette,
    short: bool = False,
    trend: Trend | None = None,
) -> None:
    """The most under-served key and its fair-share attainment so far (the dequeues it got
    over those it was owed, as the results and the report judge it, over every dequeue the
    per-key table counts), then Jain's index over the judged keys' attainments: n/a until a
    key has been owed enough to judge; coloured by verdict; with a `trend`, each figure's
    sparkline over the run so far follows it."""
    out.append("under-served " if short else "most under-served ", DIM)
    if fairness.underserved is None or fairness.attainment is None:
        out.append("n/a", DIM)
        out.append(" (no key owed 3 dequeues yet)" if not short else "", DIM)
    else:
        out.append(fairness.underserved, palette.style(fairness.underserved))
        out.append(" ")
        out.append(ratio(fairness.attainment), palette.verdict(fairness.attainment))
        out.append("" if short else " of its share", DIM)
        if trend is not None:
            out.append(" ")
            sparkline(out, trend.worst, min(TREND, len(trend.worst)), palette)
    if fairness.jain is not None:
        out.append(" · Jain ", DIM)
        out.append(ratio(fairness.jain), palette.verdict(fairness.jain))
        if trend is not None:
            out.append(" ")
            sparkline(out, trend.jain, min(TREND, len(trend.jain)), palette)


def state_text(out: Text, frame: Frame, controls: Controls) -> None:
    """Play / replay / done: first on its line, so a narrow screen never cuts it."""
    if frame.done:
        held = sum(len(s.held) for s in frame.snapshots)
        out.append("■ done", BOLD)
        if held:
            out.append(f" ({held} slots still held: released after the last dequeue)", DIM)
    elif controls.playing:
        asked, made = controls.instants_per_s, controls.achieved
        if made is not None and made < SLOWER * asked:  # the lanes cannot keep up: say so
            out.append(f"▶ playing {made:.1f} {_per_s(frame)}", BOLD)
            out.append(f" ({asked:g} asked)", DIM)
        else:
            out.append(f"▶ playing {asked:g} {_per_s(frame)}", BOLD)
    else:
        out.append(f"paused · play speed {controls.instants_per_s:g} {_per_s(frame)}", DIM)
    if controls.replay is not None:
        shown, recorded = controls.replay
        out.append(f" │ replay: frame {shown} of {recorded} recorded", BOLD)
    if controls.stepping:
        out.append(f" │ {RUNNING if controls.running_to_end else STEPPING}", BOLD)


def _per_s(frame: Frame) -> str:
    """What play speed counts: logical instants a second, or a step scenario's steps."""
    return "steps/s" if frame.snapshots[0].time_unit == "step" else "instants/s"


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
        steps = snaps[0].time_unit == "step"  # a step scenario: no seed, time in steps
        out.append(f" {setup.scenario.name}", BOLD)
        if not steps:
            out.append(" · seed ", DIM)
            out.append(setup.seed)
        out.append(" · ", DIM)
        out.append(" vs ".join(s.discipline for s in snaps), BOLD)
        out.append(" · step " if steps else " · t=", DIM)
        out.append("/".join(str(s.t) for s in snaps) + ("" if steps else "ms"))
        if len(snaps) == 1:
            snap = snaps[0]
            out.append(" · " if steps else f" · dequeue round {snap.step} · ", DIM)
            out.append(f"{snap.dequeued}/{snap.total_runs}")
            out.append(" runs out · ", DIM)
            out.append(f"{len(snap.held)}/{snap.env_limit}")
            out.append(" slots held", DIM)
        out.append("\n ")
        if controls.error is not None:
            out.append(f"✖ {controls.error}", BOLD)
            out.append("  (r restarts, q quits)", DIM)
            return out
        state_text(out, frame, controls)
        out.append("  │ ", DIM)
        if len(snaps) == 1:
            trend = frame.trends[0] if frame.trends else None
            fairness_text(out, frame.fairness[0], palette, trend=trend)
            if (oldest := longest_wait(snaps[0])) is not None:
                out.append(" · longest wait ", DIM)
                out.append(oldest[0], palette.style(oldest[0]))
                out.append(f" {ms(oldest[1], snaps[0].time_unit)}")
        else:
            out.append("lockstep: a lane ahead in logical time waits", DIM)
        return out
