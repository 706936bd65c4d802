"""The player the app drives: a simulated run's tape (ckviz.player.tape: step, instant, back and
replay, play, other rows) over its lanes, and the moves only a run has (run to the end and its
stop flag, go to, run until a key is served, start a setup, compare mode, export).

Textual-free on purpose (lint-imports keeps Textual out): the app turns key presses into the
player's moves and shows what they give back, so every rule about moving through a run is
tested without a terminal (tests/tui/test_player.py). The moves it gives back (a frame to show,
work for the driver thread, a refusal) are ckviz.player.moves'.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ckviz.errors import CkvizError
from ckviz.model.clock import STEPS
from ckviz.model.snapshot import FULL_VIEW
from ckviz.player.choice import fit_disciplines
from ckviz.player.filter import one_key
from ckviz.player.frames import Frame, Setup
from ckviz.player.jumps import Jump, go_to, replay_to, until_served
from ckviz.player.lanes import LaneSource
from ckviz.player.moves import BELL, Ask, Export, Landing, Move, Refused, Show
from ckviz.player.progress import Goal, MoveProgress
from ckviz.player.recording import HISTORY_LIMIT, Bookmarks
from ckviz.player.tape import Tape


@dataclass(slots=True)
class Stops:
    """The stop flags of the long moves: esc sets the one running, quit sets both."""

    run: threading.Event = field(default_factory=threading.Event)  # a run to the end
    jump: threading.Event | None = None  # a go to or run until served

    def fresh_jump(self) -> Callable[[], bool]:
        self.jump = threading.Event()
        return self.jump.is_set

    def all(self) -> None:
        self.run.set()
        if self.jump is not None:
            self.jump.set()


class Player(Tape):
    """One session of the app: the setup it runs, the frames recorded, the moves through them.

    Every lane call runs on the player's one driver thread, in order: a lane is never used by
    two threads at once, and closing runs after the work asked before it.
    """

    source: LaneSource
    setup: Setup

    def __init__(self, source: LaneSource, setup: Setup, history: int = HISTORY_LIMIT) -> None:
        super().__init__(source, setup, history)
        self.marks = Bookmarks()  # `m` marks a moment of the run shown, `'` goes back to it
        self.home_lane = 0  # the lane compare mode came from (its discipline is kept on leaving)
        self._stops = Stops()
        self.progress: MoveProgress | None = None  # the long move running (`>`, `:`, `u`)

    # ---- what the app reads -----------------------------------------------------------------

    @property
    def steps(self) -> bool:
        """A step-harness scenario: time is counted in steps, a round is one call."""
        return self.setup.scenario.clock is STEPS

    def _stop_long_moves(self) -> None:
        self._stops.all()

    def landed(self, frames: list[Frame], landing: Landing) -> Frame | None:
        shown = super().landed(frames, landing)
        if not self.in_flight:
            self.progress = None  # the long move (if any) is over
        return shown

    def failed(self, error: CkvizError) -> None:
        super().failed(error)
        self.progress = None

    def _progress(
        self, goal: Goal, what: str, target: int | None = None, fresh: bool = False
    ) -> MoveProgress:
        """A long move's progress, from the live frame (`fresh`: a replay from the start)."""
        live = self.recording.current
        snaps = () if live is None else live.snapshots
        out = sum(s.dequeued for s in snaps)
        start = (0, 0) if fresh or live is None else (min(live.times), out)
        total, unit = sum(s.total_runs for s in snaps), "step" if self.steps else "ms"
        self.progress = MoveProgress(goal, what, start, total, target, unit)
        return self.progress

    def toggle_compare(self) -> Ask:
        """Compare mode on (the discipline beside baseline, or baseline beside sfq), or off
        (back to the lane compare mode came from)."""
        disciplines = self.setup.disciplines
        if len(disciplines) > 1:
            chosen: tuple[str, ...] = (disciplines[self.home_lane],)
        elif disciplines[0] == "baseline":  # sfq beside it, or what runs on a step scenario
            chosen, self.home_lane = fit_disciplines(self.setup.scenario, ("baseline", "sfq"))[0], 0
        else:
            chosen, self.home_lane = ("baseline", disciplines[0]), 1
        return self.start(replace(self.setup, disciplines=chosen))

    # ---- setups and views -------------------------------------------------------------------

    def start(self, setup: Setup) -> Ask:
        """Close what runs and start `setup`: a fresh recording from its first frame."""
        self.playing = False
        self.setup = setup
        view, source = self.view_request(), self.source

        def start() -> list[Frame]:
            source.set_view(view)
            return source.start(setup)

        return Ask(start, "fresh")

    def export_job(self) -> Callable[[], Export] | None:
        """A job making the live moment again with every key's row, and each lane's run so
        far (the export's), if the live frame is shown and nothing else runs; else None (the
        export writes what is shown)."""
        idle = self.recording.live and not self.busy and self.error is None and not self.closed
        if not idle:
            return None
        view, source, setup = self.view_request(), self.source, self.setup

        def export() -> Export:
            source.set_view(FULL_VIEW)
            try:
                return Export(source.reframe(), source.outcomes(), setup)
            finally:
                source.set_view(view)

        return export

    # ---- moving through the run ---------------------------------------------------------------

    def run_to_end(self) -> Move:
        """Every remaining round in one job, no frame on the way (only the last recorded);
        asked again while it runs, it stops it (as `stop` does)."""
        if self.running_to_end:
            self.stop()
            return None
        if self.closed or self.recording.current is None or self.error is not None or self.done:
            return BELL
        self._go_live()
        self._stops.run.clear()
        self.running_to_end = True
        source, stopped, heard = (
            self.source,
            self._stops.run.is_set,
            self._progress("end", "running to the end").heard,
        )
        return Ask(lambda: source.run_to_end(stopped, self._closing, heard))

    def stop(self) -> bool:
        """esc: stop a run to the end, or a long move, where it is; False if none runs."""
        if self.running_to_end:
            self._stops.run.set()
            return True
        jump = self._stops.jump
        if self.busy and jump is not None and not jump.is_set():
            jump.set()
            return True
        return False

    def go_to(self, target: int) -> Move:
        """The first recorded frame at or after `target` (ms, or step); past the recording,
        step to it; before its first frame kept, start over and run to it."""
        self.playing = False
        unit = "step" if self.steps else "t"
        recording = self.recording
        live = recording.frames[-1] if recording.frames else None
        if live is None or self.error is not None:
            return BELL
        if min(live.times) < target:
            self._go_live()
            if live.done:
                return Refused(f"the run ended before {unit} {target}")
            source, stop = self.source, self._stops.fresh_jump()
            heard = self._progress("time", f"going to {unit} {target}", target).heard
            return Ask(lambda: go_to(source, target, unit, stop, heard))
        if (frame := recording.seek(lambda f: min(f.times) >= target)) is not None:
            return Show(frame)
        source, setup, stop = self.source, self.setup, self._stops.fresh_jump()
        heard = self._progress("time", f"going to {unit} {target}", target, fresh=True).heard
        return Ask(lambda: replay_to(source, setup, target, unit, stop, heard), "fresh")

    def until_served(self, typed: str, keys: list[str]) -> Move:
        """Round by round until a run of the key `typed` names (exactly, or as the one fuzzy
        match) is dequeued, or the end."""
        key, why = one_key(typed, keys)
        if key is None:
            return Refused(f"run until served: {why} '{typed}'", "error")
        self.playing = False
        self._go_live()
        frame = self.recording.current
        if frame is None or frame.done:
            return BELL
        source, steps, stop = self.source, self.steps, self._stops.fresh_jump()
        heard = self._progress("served", f"until {key} is served").heard
        view = self.view_request()

        def serve() -> Jump:
            # the key's row in every frame on the way: a frame carries a screenful of rows
            # (at 10,000 keys, light-5000's is not among them) and its count tells served
            source.set_view(replace(view, also=(*view.also, key)))
            try:
                now = source.reframe()  # its count before the move, whichever frame is shown
                return until_served(source, now[0] if now else frame, key, steps, stop, heard)
            finally:
                source.set_view(view)

        return Ask(serve)

    def _closing(self) -> bool:
        """Asked on the driver thread once a long move stopped: a quit wants no frame."""
        return self.closed

    def _go_live(self) -> None:
        """A replay first catches up with the live end."""
        while not self.recording.live:
            self.recording.forward()
