"""The moves through frames, whoever makes them: a recording over a frame source (ckviz.tui.
frames) and the moves every source allows (step, back and forward, play and pause, the view's
rows), every source call on one driver thread.

Textual-free on purpose (lint-imports keeps Textual out): the simulated run's player (ckviz.tui.
player) adds what only a run has (its setups, run to the end, go to, run until served, export),
the live watch (ckviz.tui.watch_app) refreshes a queue through the same moves.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from ckviz.errors import CkvizError
from ckviz.model.snapshot import SORTS, ViewRequest
from ckviz.player.filter import NO_FILTER, KeyFilter
from ckviz.player.frames import Frame, FrameSource, Origin
from ckviz.player.jumps import Jump
from ckviz.player.moves import BELL, Ask, Export, Landing, Move, Result, Show
from ckviz.player.pace import Pace
from ckviz.player.recording import HISTORY_LIMIT, HISTORY_OBJECTS, Recording
from ckviz.player.viewing import Viewing

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


class Tape:
    """Frames recorded from a source, the one shown, and the moves through them.

    Every source call runs on the tape's one driver thread, in order: a source is never used
    by two threads at once, and closing runs after the work asked before it.
    """

    def __init__(self, source: FrameSource, setup: Origin, history: int = HISTORY_LIMIT) -> None:
        self.source = source  # owned by whoever made it: the tape only asks and closes it
        self.setup = setup
        keys = max(1, len(setup.key_order()))
        self.recording = Recording(min(history, max(200, HISTORY_OBJECTS // keys)))
        self.view = Viewing()
        self.error: CkvizError | None = None
        self.playing = False
        self.speed = DEFAULT_SPEED
        self.pace = Pace()  # how fast play really goes
        self.closed = False
        self.running_to_end = False  # a long job runs whose frame alone is recorded
        self.in_flight = 0  # driver jobs asked for and not landed yet
        self.backs_pending = 0  # step-backs asked while jobs ran: applied when they land
        self.coalesced: tuple[bool, int] | None = None  # (instant, count) beyond MAX_QUEUED
        self._driver = ThreadPoolExecutor(1, thread_name_prefix="ckviz-driver")

    # ---- what the app reads -----------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Driver jobs are still running or waiting (tests wait for this to clear)."""
        return self.in_flight > 0

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
            self.recording.reset(frames[0])  # the start, then what a replay kept on its way
            for frame in frames[1:]:
                self.recording.append(frame)
            return frames[-1]
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
        self._stop_long_moves()
        return self._driver.submit(self.source.close)

    def close(self) -> None:
        """Synchronous last resort (also after the app has ended): no lane is left open."""
        self.closed = True
        self._stop_long_moves()
        self._driver.shutdown(wait=True, cancel_futures=True)
        self.source.close()

    def _stop_long_moves(self) -> None:
        """Closing: stop what runs long (a run's own moves; a source refresh is short)."""

    # ---- views ---------------------------------------------------------------------------------

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
        return self.sort_by(SORTS[(SORTS.index(self.view.sort_by) + 1) % len(SORTS)])

    def sort_by(self, sort: str) -> Move:
        """The per-key table in `sort`'s order (one of SORTS), the live frame made again."""
        self.view.sort_by = sort
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
