"""The status line: scenario, seed, discipline(s), time, progress, fairness so far (the most
under-served key by fair-share attainment, over the same dequeues as the key table), controls."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ckviz.fairness_so_far import SoFar
from ckviz.model.history import Trend
from ckviz.player.frames import Frame
from ckviz.player.player import Player
from ckviz.player.tape import SPEEDS
from ckviz.tui.palette import KeyPalette
from ckviz.tui.sparkline import sparkline
from ckviz.tui.text import BOLD, DIM, STARVED, Part, fitted, longest_wait, ms, ratio

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
    progress: str | None = None  # a long move's progress line (player/progress.py), while run
    progress_short: str | None = None  # the same, for a narrow terminal


def controls_of(player: Player) -> Controls:
    """What the app's player is doing, as the status line says it."""
    replay = None if player.recording.live else player.recording.position
    error = str(player.error) if player.error else None
    interval, instants = SPEEDS[player.speed]
    progress = player.progress
    return Controls(
        player.playing,
        player.speed + 1,
        replay,
        error,
        player.busy,
        round(instants / interval, 1),
        player.running_to_end,
        player.pace.rate(),
        None if progress is None else progress.line(),
        None if progress is None else progress.line(short=True),
    )


# What goes first when the bottom line is too narrow (the highest first): the note on slots
# still held, Jain's sparkline, then the under-served key's (at 140 columns both figures and
# that sparkline stay), the long words, Jain, the longest wait, the play speed; the
# under-served key and its attainment, the fairness verdict, stay last beside what the app
# is doing (and, where keys belong to tenants, the most under-served tenant; its most
# over-served goes before all).
TENANT_OVER, HELD, JAIN_TREND, WORST_TREND, LONG_WORDS, JAIN = 8, 7, 6, 5, 4, 3
LONGEST_WAIT, SPEED = 2, 1


def fairness_parts(fairness: SoFar, palette: KeyPalette, trend: Trend | None) -> list[Part]:
    """The most under-served key and its fair-share attainment so far (the dequeues it got
    over those it was owed, as the results and the report judge it, over every dequeue the
    per-key table counts), then Jain's index over the judged keys' attainments: n/a until a
    key has been owed enough to judge; coloured by verdict; with a `trend`, each figure's
    sparkline over the run so far follows it."""
    worst = Text("most under-served ", DIM)
    short = Text("under-served ", DIM)
    trends: list[Part] = []
    if fairness.underserved is None or fairness.attainment is None:
        worst.append("n/a (no key owed 3 dequeues yet)", DIM)
        short.append("n/a", DIM)
    else:
        figure = Text(fairness.underserved, palette.style(fairness.underserved)).append(" ")
        if fairness.underserved in fairness.starved:  # the per-key marks' ✖, the same meaning
            figure.append(f"{STARVED} ", palette.starved)
        figure.append(ratio(fairness.attainment), palette.verdict(fairness.attainment))
        worst.append_text(figure).append(" of its share", DIM)
        short.append_text(figure)
        if trend is not None:
            trends.append(Part(WORST_TREND, _trend(trend.worst, palette)))
    parts = [Part(0, worst, short, shorten=LONG_WORDS), *trends, *tenant_parts(fairness, palette)]
    if fairness.jain is not None:
        jain = Text(" · Jain ", DIM).append(ratio(fairness.jain), palette.verdict(fairness.jain))
        parts.append(Part(JAIN, jain))
        if trend is not None:
            parts.append(Part(JAIN_TREND, _trend(trend.jain, palette)))
    return parts


def tenant_parts(fairness: SoFar, palette: KeyPalette) -> list[Part]:
    """Where keys belong to tenants: the most under-served tenant and its attainment (the
    results' most_underserved_tenant at a run's end), then the most over-served."""
    if fairness.tenant is None:
        return []
    name, attainment = fairness.tenant
    figure = Text(f"{name} ").append(ratio(attainment), palette.verdict(attainment))
    long = Text(" · most under-served tenant ", DIM).append_text(figure)
    parts = [Part(0, long, Text(" · tenant ", DIM).append_text(figure), shorten=LONG_WORDS)]
    if fairness.tenant_over is not None and fairness.tenant_over[0] != name:
        over, got = fairness.tenant_over
        parts.append(Part(TENANT_OVER, Text(f", over-served {over} ", DIM).append(ratio(got))))
    return parts


def _trend(values: tuple[float | None, ...], palette: KeyPalette) -> Text:
    out = Text(" ")
    sparkline(out, values, min(TREND, len(values)), palette)
    return out


def state_parts(frame: Frame, controls: Controls) -> list[Part]:
    """Play / replay / done, first on its line: what is happening stays, why slots are still
    held may go."""
    now, then = Text(), Text()
    short: Text | None = None  # what is happening without how fast
    if frame.done:
        now.append("■ done", BOLD)
    elif controls.playing:
        asked, made = controls.instants_per_s, controls.achieved
        short = Text("▶ playing", BOLD)
        if made is not None and made < SLOWER * asked:  # the lanes cannot keep up: say so
            now.append(f"▶ playing {made:.1f} {_per_s(frame)}", BOLD)
            now.append(f" ({asked:g} asked)", DIM)
        else:
            now.append(f"▶ playing {asked:g} {_per_s(frame)}", BOLD)
    else:
        now.append(f"paused · play speed {controls.instants_per_s:g} {_per_s(frame)}", DIM)
        short = Text("paused", DIM)
    if controls.replay is not None:
        shown, recorded = controls.replay
        then.append(f" │ replay: frame {shown} of {recorded} recorded", BOLD)
    moving: list[Part] = []
    if controls.stepping and controls.progress is not None:
        said = Text(f" │ ⋯ {controls.progress}", BOLD)
        brief = Text(f" │ ⋯ {controls.progress_short or controls.progress}", BOLD)
        moving.append(Part(0, said, brief, shorten=SPEED))  # "(esc stops)" stays
    elif controls.stepping:
        then.append(f" │ {RUNNING if controls.running_to_end else STEPPING}", BOLD)
    return [Part(0, now, short, SPEED), Part(HELD, _still_held(frame)), Part(0, then), *moving]


def _still_held(frame: Frame) -> Text:
    held = sum(len(s.held) for s in frame.snapshots)
    note = f" ({held} slots still held: released after the last dequeue)"
    return Text(note if frame.done and held else "", DIM)


def _per_s(frame: Frame) -> str:
    """What play speed counts: logical instants a second, or a step scenario's steps."""
    return "steps/s" if frame.snapshots[0].time_unit == "step" else "instants/s"


class StatusBar(Static):
    """Two lines at the top of each mode, each fitted to the width by priority: the least
    telling parts go (or shorten) first, never a word cut in two."""

    _shown: tuple[Frame, Controls, KeyPalette] | None = None

    def show(self, frame: Frame, controls: Controls, palette: KeyPalette) -> None:
        self._shown = (frame, controls, palette)
        self.set_class(controls.error is not None, "-error")
        self.text = self.render_frame(frame, controls, palette, self.size.width or None)
        self.update(self.text, layout=False)  # always two lines: no layout pass needed

    def on_resize(self) -> None:
        if self._shown is not None:  # wider or narrower: other parts fit
            self.show(*self._shown)

    @staticmethod
    def render_frame(
        frame: Frame, controls: Controls, palette: KeyPalette, width: int | None = None
    ) -> Text:
        top, bottom = _where(frame), _doing(frame, controls, palette)
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        return out.append_text(fitted(top, width)).append("\n").append_text(fitted(bottom, width))


def _where(frame: Frame) -> list[Part]:
    """Where the run is: scenario, seed, discipline(s), time, progress."""
    setup, snaps = frame.setup, frame.snapshots
    steps = snaps[0].time_unit == "step"  # a step scenario: no seed, time in steps
    parts = [Part(0, Text(f" {setup.title}", BOLD))]
    if not steps and setup.seed is not None:
        parts.append(Part(3, Text.assemble((" · seed ", DIM), setup.seed)))
    parts.append(
        Part(0, Text.assemble((" · ", DIM), (" vs ".join(s.discipline for s in snaps), BOLD)))
    )
    times = "/".join(str(s.t) for s in snaps) + ("" if steps else "ms")
    parts.append(Part(1, Text.assemble((" · step " if steps else " · t=", DIM), times)))
    if len(snaps) == 1:
        snap = snaps[0]
        if not steps:
            parts.append(Part(4, Text(f" · dequeue round {snap.step}", DIM)))
        out = f"{snap.dequeued}/{snap.total_runs}"
        parts.append(Part(2, Text.assemble((" · ", DIM), out, (" runs out", DIM))))
        held = f"{len(snap.held)}/{snap.env_limit}"
        parts.append(Part(3, Text.assemble((" · ", DIM), held, (" slots held", DIM))))
    return parts


def _doing(frame: Frame, controls: Controls, palette: KeyPalette) -> list[Part]:
    """What the app is doing, then fairness so far (or the error)."""
    snaps = frame.snapshots
    if controls.error is not None:
        return [
            Part(0, Text(f" ✖ {controls.error}", BOLD)),
            Part(1, Text("  (r restarts, q quits)", DIM)),
        ]
    parts = [Part(0, Text(" ")), *state_parts(frame, controls)]  # the why goes before fairness
    if len(snaps) > 1:
        return [*parts, Part(2, Text("  │ lockstep: a lane ahead in logical time waits", DIM))]
    trend = frame.trends[0] if frame.trends else None
    parts += [Part(0, Text("  │ ", DIM)), *fairness_parts(frame.fairness[0], palette, trend)]
    if (oldest := longest_wait(snaps[0])) is not None:
        wait = Text(" · longest wait ", DIM).append(oldest[0], palette.style(oldest[0]))
        parts.append(Part(LONGEST_WAIT, wait.append(f" {ms(oldest[1], snaps[0].time_unit)}")))
    return parts
