"""The player the app drives: a recording of frames over a lane source, and the moves through it
(step, instant, back and replay, play, run to the end and its stop flag, go to, run until a key
is served, start a setup, show other rows).

Textual-free on purpose (lint-imports keeps Textual out): the app turns key presses into the
player's moves and shows what they give back, so every rule about moving through a run is
tested without a terminal (tests/tui/test_player.py). The moves it gives back (a frame to show,
work for the driver thread, a refusal) are ckviz.tui.moves'.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from ckviz.errors import CkvizError
from ckviz.model.clock import STEPS, clock_of
from ckviz.model.snapshot import FULL_VIEW, SORTS, ViewRequest
from ckviz.tui.choice import fit_disciplines
from ckviz.tui.filter import NO_FILTER, KeyFilter, fuzzy_match
from ckviz.tui.jumps import Jump, go_to, replay_to, until_served
from ckviz.tui.lanes import Frame, LaneSource, Setup
from ckviz.tui.moves import BELL, Ask, Export, Landing, Move, Refused, Result, Show
from ckviz.tui.pace import Pace
from ckviz.tui.recording import HISTORY_LIMIT, HISTORY_OBJECTS, Bookmarks, Recording
from ckviz.tui.viewing import Viewing

# Play speeds: (seconds between ticks, instants per tick).
SPEEDS: tuple[tuple[float, int], ...] = (
    (1.0, 1),
    (0.5, 1),
    (0.25, 1),
    (0.12, 1),
    (0.06, 1),
    (0.03, 1),
    (0.03, 4),
    (0.03, 16),
)
DEFAULT_SPEED = 3
MAX_QUEUED = 8  # step jobs asked for while others still run; more presses add to one more job


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


class Player:
    """One session of the app: the setup it runs, the frames recorded, the moves through them.

    Every lane call runs on the player's one driver thread, in order: a lane is never used by
    two threads at once, and closing runs after the work asked before it.
    """

    def __init__(self, source: LaneSource, setup: Setup, history: int = HISTORY_LIMIT) -> None:
        self.source = source  # owned by whoever made it: the player only starts and closes it
        self.setup = setup
        keys = len(setup.scenario.weights())
        self.recording = Recording(min(history, max(200, HISTORY_OBJECTS // keys)))
        self.marks = Bookmarks()  # `m` marks a moment of the run shown, `'` goes back to it
        self.view = Viewing()
        self.error: CkvizError | None = None
        self.playing = False
        self.speed = DEFAULT_SPEED
        self.pace = Pace()  # how fast play really goes
        self.closed = False
        self.running_to_end = False
        self.in_flight = 0  # driver jobs asked for and not landed yet
        self.backs_pending = 0  # step-backs asked while jobs ran: applied when they land
        self.coalesced: tuple[bool, int] | None = None  # (instant, count) beyond MAX_QUEUED
        self.home_lane = 0  # the lane compare mode came from (its discipline is kept on leaving)
        self._stops = Stops()
        self._driver = ThreadPoolExecutor(1, thread_name_prefix="ckviz-driver")

    # ---- what the app reads -----------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Driver jobs are still running or waiting (tests wait for this to clear)."""
        return self.in_flight > 0

    @property
    def steps(self) -> bool:
        """A step-harness scenario: time is counted in steps, a round is one call."""
        return clock_of(self.setup.scenario) is STEPS

    @property
    def done(self) -> bool:
        """The live frame is the run's last."""
        current = self.recording.current
        return current is not None and current.done

    def view_request(self) -> ViewRequest:
        return self.view.request(self.setup)

    # ---- the driver thread ------------------------------------------------------------------

    def submit(self, ask: Ask) -> Future[Result]:
        """Run `ask` on the driver thread; the caller hands its result to `landed`."""
        self.in_flight += 1
        return self._driver.submit(ask.job)

    def landed(self, frames: list[Frame], landing: Landing) -> Frame | None:
        """A driver job's frames arrived: record them; the frame to show, if the view moves."""
        self.in_flight -= 1
        self.running_to_end = self.running_to_end and self.in_flight > 0
        if self.closed:
            return None
        if landing == "fresh":
            if not frames:
                return None
            self.error = None
            self.recording.reset(frames[0])
            return frames[0]
        if landing == "redrawn":
            return frames[0] if frames and self.recording.redraw_live(frames[0]) else None
        followed = [self.recording.append(frame) for frame in frames]  # every one recorded
        return frames[-1] if any(followed) else None

    def failed(self, error: CkvizError) -> None:
        """A driver job failed: nothing moves until a new setup starts."""
        self.in_flight -= 1
        self.running_to_end = self.running_to_end and self.in_flight > 0
        self.error = error
        self.backs_pending = 0
        self.coalesced = None
        self.playing = False

    def settled(self) -> list[Move]:
        """The driver thread has nothing left to do: the steps pressed beyond MAX_QUEUED, as
        one job (the step-backs asked meanwhile wait for it), else those step-backs."""
        if self.coalesced is not None:
            (instant, count), self.coalesced = self.coalesced, None
            move = self.advance(instant, count)
            if isinstance(move, Ask):
                return [move]
        backs, self.backs_pending = self.backs_pending, 0
        return [self.back() for _ in range(backs)]

    def run_aside(self, job: Callable[[], Export]) -> Future[Export]:
        """A job on the driver thread that moves nothing (the export's)."""
        return self._driver.submit(job)

    def wait(self, move: Move) -> Frame | None:
        """Carry `move` out here and now (no event loop): the frame it shows, if any."""
        if isinstance(move, Show):
            return move.frame
        if not isinstance(move, Ask):
            return None
        result = self.submit(move).result()
        return self.landed(result.frames if isinstance(result, Jump) else result, move.landing)

    def close_soon(self) -> Future[None]:
        """Stop what runs (a run to the end, a long move), then close every lane on the driver
        thread after the work already asked (quit: their keys are deleted)."""
        self.closed = True
        self.playing = False
        self._stops.all()
        return self._driver.submit(self.source.close)

    def close(self) -> None:
        """Synchronous last resort (also after the app has ended): no lane is left open."""
        self.closed = True
        self._stops.all()
        self._driver.shutdown(wait=True, cancel_futures=True)
        self.source.close()

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

    def reframe(self) -> Move:
        """The panes want other rows (a sort, a filter): the live frame again, for them. A
        recorded frame shown meanwhile keeps its rows (the panes order what it carries)."""
        if self.closed or self.recording.current is None or self.error is not None:
            return None
        view, source = self.view_request(), self.source

        def redraw() -> list[Frame]:
            source.set_view(view)
            return source.reframe()

        return Ask(redraw, "redrawn")

    def next_sort(self) -> Move:
        """The per-key table's next order: scenario, queued, out, age, wait."""
        self.view.sort_by = SORTS[(SORTS.index(self.view.sort_by) + 1) % len(SORTS)]
        return self.reframe()

    def filter_keys(self, query: str) -> Move:
        """Only the keys matching `query` ("" lists all), asked of the lanes: filtering only
        the rows a frame carries would miss most matches at scale."""
        self.view.key_filter = KeyFilter(query) if query.strip() else NO_FILTER
        current = self.recording.current
        names = current.snapshots[0].every_key.key_names if current is not None else ()
        key_filter = self.view.key_filter
        self.view.only_keys = tuple(key_filter.keep(names, str)) if key_filter else None
        return self.reframe()

    def export_job(self) -> Callable[[], Export] | None:
        """A job making the live moment again with every key's row, and each lane's run so
        far (the export's), if the live frame is shown and nothing else runs; else None (the
        export writes what is shown)."""
        idle = self.recording.live and not self.busy and self.error is None and not self.closed
        if not idle:
            return None
        view, source = self.view_request(), self.source

        def export() -> Export:
            source.set_view(FULL_VIEW)
            try:
                return Export(source.reframe(), source.outcomes())
            finally:
                source.set_view(view)

        return export

    # ---- moving through the run ---------------------------------------------------------------

    def advance(self, instant: bool, count: int = 1) -> Move:
        """Replay recorded frames first; at the live end, ask the lanes for `count` more rounds
        (or instants)."""
        current = self.recording.current
        if self.closed or current is None or self.error is not None:
            return BELL
        if not self.recording.live:
            frame = self.recording.forward_instant() if instant else self.recording.forward()
            if frame is not None:
                return Show(frame)
        if self.done:
            return BELL
        if self.in_flight >= MAX_QUEUED:  # add them up: asked as one job once these land
            asked = self.coalesced
            if asked is not None and asked[0] != instant:
                return BELL  # rounds and instants are not added together
            self.coalesced = (instant, count + (asked[1] if asked else 0))
            return None
        source = self.source
        return Ask(lambda: source.advance(instant, count))

    def back(self) -> Move:
        """The recorded frame before the one shown (after the steps already asked for land)."""
        if self.in_flight:
            self.backs_pending += 1
            return None
        frame = self.recording.back()
        return BELL if frame is None else Show(frame)

    def set_playing(self, playing: bool) -> bool:
        """Play (an instant per tick) unless the live end is done or the player cannot move."""
        finished = self.recording.current is None or (self.recording.live and self.done)
        self.playing = playing and not finished and self.error is None and not self.closed
        self.pace.reset()
        return self.playing

    def tick(self) -> Move:
        """A play tick: the speed's instants, unless the last tick's are still running."""
        if not self.playing or self.in_flight:
            return None  # never two steps at once: the next tick waits for this one
        move = self.advance(instant=True, count=SPEEDS[self.speed][1])
        if isinstance(move, Ask):
            self.pace.ticked(SPEEDS[self.speed][1])
        return move

    def faster(self, change: int) -> float:
        """Change the play speed by `change` notches; the seconds between ticks now."""
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + change))
        self.pace.reset()
        return SPEEDS[self.speed][0]

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
        source, stopped = self.source, self._stops.run.is_set
        return Ask(lambda: source.run_to_end(stopped, self._closing))

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
            return Ask(lambda: go_to(source, target, unit, stop))
        if (frame := recording.seek(lambda f: min(f.times) >= target)) is not None:
            return Show(frame)
        source, setup, stop = self.source, self.setup, self._stops.fresh_jump()
        return Ask(lambda: replay_to(source, setup, target, unit, stop), "fresh")

    def until_served(self, typed: str, keys: list[str]) -> Move:
        """Round by round until a run of the key `typed` names (exactly, or as the one fuzzy
        match) is dequeued, or the end."""
        key = typed if typed in keys else None
        if key is None:
            found = [k for k in keys if fuzzy_match(typed.casefold().split(), k)]
            if len(found) != 1:
                many = f"{len(found)} keys match" if found else "no key matches"
                return Refused(f"run until served: {many} '{typed}'", "error")
            key = found[0]
        self.playing = False
        self._go_live()
        frame = self.recording.current
        if frame is None or frame.done:
            return BELL
        source, steps, stop = self.source, self.steps, self._stops.fresh_jump()
        return Ask(lambda: until_served(source, frame, key, steps, stop))

    def _closing(self) -> bool:
        """Asked on the driver thread once a long move stopped: a quit wants no frame."""
        return self.closed

    def _go_live(self) -> None:
        """A replay first catches up with the live end."""
        while not self.recording.live:
            self.recording.forward()
