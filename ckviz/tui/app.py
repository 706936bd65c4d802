"""The ckviz terminal app: owns the lanes, steps them off the event loop, shows each frame."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import ClassVar

import redis
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.timer import Timer

from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED
from ckviz.disciplines.registry import check_discipline
from ckviz.errors import CkvizError, ExitCode, RedisUnavailable
from ckviz.inputs.scenario_files import AnyScenario
from ckviz.inputs.scenario_files import load_any as load
from ckviz.model.snapshot import SORTS
from ckviz.sim.steps import STEP_DISCIPLINES
from ckviz.tui.commands import CkvizCommands
from ckviz.tui.jumps import Jump
from ckviz.tui.lanes import Frame, LaneSource, Setup
from ckviz.tui.messages import DriverCrashed, DriverFailed, Stepped
from ckviz.tui.nav_actions import NavActions
from ckviz.tui.palette import KeyPalette, theme_colours, verdict_colours
from ckviz.tui.recording import HISTORY_LIMIT, HISTORY_OBJECTS, Recording
from ckviz.tui.screen_actions import ScreenActions
from ckviz.tui.screens.compare import CompareScreen
from ckviz.tui.screens.main import MainScreen
from ckviz.tui.widgets.key_queues import KeyQueuesPane
from ckviz.tui.widgets.status import Controls

# Play speeds: (seconds between ticks, instants per tick).
SPEEDS: tuple[tuple[float, int], ...] = (
    (1.0, 1), (0.5, 1), (0.25, 1), (0.12, 1), (0.06, 1), (0.03, 1), (0.03, 4), (0.03, 16),
)  # fmt: skip
DEFAULT_SPEED = 3
MAX_QUEUED = 8  # steps asked for while others are still running; more presses are dropped

Job = Callable[[], list[Frame] | Jump]
SPEED = Binding.Group("Speed", compact=True)


class CkvizApp(NavActions, ScreenActions):
    """Step a scenario's per-key dequeue on a real Redis, one discipline or two side by side."""

    CSS_PATH = Path(__file__).resolve().parent / "ckviz.tcss"  # absolute: subclasses too
    TITLE = "ckviz"
    COMMANDS = App.COMMANDS | {CkvizCommands}
    ESCAPE_TO_MINIMIZE = False  # esc clears a `/` filter first, then leaves a zoom (nav_actions)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "step", "Step", id="ckviz.step"),
        Binding("n", "instant", "Next", id="ckviz.instant"),
        Binding("p", "play", "Play", id="ckviz.play"),
        Binding(
            "plus,equals_sign",
            "speed(1)",
            "Faster",
            key_display="+",
            id="ckviz.faster",
            group=SPEED,
        ),
        Binding("minus", "speed(-1)", "Slower", key_display="-", id="ckviz.slower", group=SPEED),
        Binding("left,b", "step_back", "Back a frame", key_display="←", id="ckviz.back"),
        Binding("slash", "filter", "Filter", key_display="/", id="ckviz.filter"),
        Binding("escape", "clear_filter", "Clear filter", key_display="esc", id="ckviz.unfilter"),
        Binding("right", "step", "Step", show=False, id="ckviz.forward"),
        Binding("r", "restart", "Restart", id="ckviz.restart"),
        Binding("d", "pick_discipline(0)", "Discipline", id="ckviz.discipline"),
        Binding("D", "pick_discipline(1)", "Right lane", id="ckviz.discipline_b"),
        Binding("s", "pick_scenario", "Scenario", id="ckviz.scenario"),
        Binding("e", "pick_seed", "Seed", id="ckviz.seed"),
        Binding("c", "compare", "Compare", id="ckviz.compare"),
        Binding("t", "toggle_dark", "Theme", id="ckviz.theme"),
        Binding("x", "export", "Export", id="ckviz.export"),
        Binding("greater_than_sign", "run_to_end", "To end", key_display=">", id="ckviz.to_end"),
        Binding("colon", "go_to", "Go to", key_display=":", id="ckviz.go_to"),
        Binding("u", "run_until_served", "Until served", id="ckviz.until"),
        Binding("ctrl+o", "open_scenario_file", "Open file", id="ckviz.open"),
        Binding("z", "zoom", "Zoom", id="ckviz.zoom"),
        Binding("o", "sort_keys", "Sort", id="ckviz.sort"),
        *(
            Binding(str(n), f"focus_pane({n})", f"Pane {n}", show=False, id=f"ckviz.pane_{n}")
            for n in range(1, 6)
        ),
        Binding("question_mark,f1", "help", "Help", key_display="?", id="ckviz.help"),
        Binding("q", "quit", "Quit", id="ckviz.quit"),
    ]

    def __init__(self, source: LaneSource, scenario: AnyScenario | str = DEFAULT_SCENARIO,
                 discipline: str = DEFAULT_DISCIPLINE, seed: str = DEFAULT_SEED, *,
                 compare_with: str | None = None, history: int = HISTORY_LIMIT,
                 handle_signals: bool = False, check_invariants: bool = True,
                 consumers: int | None = None) -> None:  # fmt: skip
        super().__init__()
        scenario = load(scenario) if isinstance(scenario, str) else scenario
        disciplines = (discipline,) if compare_with is None else (discipline, compare_with)
        for name in disciplines:
            check_discipline(name, "discipline", also=STEP_DISCIPLINES)
        self.setup = Setup(scenario, seed, disciplines, check_invariants, consumers)
        self.lockstep = source  # owned by whoever made it: the app only starts and closes lanes
        self.recording = Recording(
            min(history, max(200, HISTORY_OBJECTS // len(scenario.weights())))
        )
        self.palette = KeyPalette([], [])
        self.error: CkvizError | None = None
        self._driver_thread = ThreadPoolExecutor(1, thread_name_prefix="ckviz-driver")
        self._in_flight = 0
        self._backs_pending = 0
        self._playing = False
        self._speed = DEFAULT_SPEED
        self._timer: Timer | None = None
        self._home_lane = 0
        self._closed = False
        self._sort_by = SORTS[0]
        self.only_keys: tuple[str, ...] | None = None  # what a key filter lets through
        self._stop_run = threading.Event()  # a run to the end stops at its next look
        self._running_to_end = False
        self._handle_signals = handle_signals

    # ---- lifecycle ----------------------------------------------------------------------

    async def on_mount(self) -> None:
        self.install_screen(MainScreen(), "single")
        self.install_screen(CompareScreen(), "compare")
        await self.push_screen("compare" if self.setup.compare else "single")
        self._timer = self.set_interval(SPEEDS[self._speed][0], self._tick, pause=True)
        self.theme_changed_signal.subscribe(self, lambda _theme: self._repaint())
        if self._handle_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGHUP, signal.SIGTERM):
                loop.add_signal_handler(sig, lambda: self.call_next(self.action_quit))
        self._start(self.setup)

    async def action_quit(self) -> None:
        """Close every lane (their keys are deleted), then exit."""
        if self._closed:
            return
        self._closed = True
        self._set_playing(False)
        loop = asyncio.get_running_loop()
        # If the server is gone, its keys went with it.
        with contextlib.suppress(CkvizError, redis.RedisError, OSError):
            await loop.run_in_executor(self._driver_thread, self.lockstep.close)
        self.close_now()
        self.exit(int(self.error.exit_code if self.error else ExitCode.OK))

    def close_now(self) -> None:
        """Synchronous last resort (also after `run()` returns): no lane is left open."""
        self._closed = True
        self._driver_thread.shutdown(wait=True, cancel_futures=True)
        with contextlib.suppress(CkvizError, redis.RedisError, OSError):
            self.lockstep.close()

    @property
    def busy(self) -> bool:
        """Driver jobs are still running or waiting (tests wait for this to clear)."""
        return self._in_flight > 0

    # ---- driver jobs, off the event loop --------------------------------------------------

    def _submit(self, job: Job, fresh: bool = False, redrawn: bool = False) -> None:
        self._in_flight += 1
        self._show_controls()  # "stepping" until the frame arrives (on_stepped)
        self._drive(job, fresh, redrawn)

    @work(group="driver")
    async def _drive(self, job: Job, fresh: bool, redrawn: bool = False) -> None:
        # Every driver call goes through the one driver thread, in order: a driver is never
        # used by two threads at once, and quit's close runs after the steps asked before it.
        loop = asyncio.get_running_loop()
        try:
            frames = await loop.run_in_executor(self._driver_thread, job)
        except CkvizError as exc:
            self.post_message(DriverFailed(exc))
        except (redis.RedisError, OSError) as exc:
            self.post_message(DriverFailed(RedisUnavailable(f"Redis failed: {exc}")))
        except Exception as exc:  # a bug: say so in the app, keep the lanes closable
            self.log.error("driver job failed", exc)
            crash = DriverCrashed(f"unexpected {type(exc).__name__}: {exc}")
            self.post_message(DriverFailed(crash))
        else:
            if isinstance(frames, Jump):  # a long move: its frame, and what to tell the user
                if frames.note:
                    self.call_later(self.notify, frames.note, severity=frames.severity)
                frames = frames.frames
            self.post_message(Stepped(tuple(frames), fresh, redrawn))

    def _jump(self, job: Callable[[], Jump], fresh: bool = False) -> None:
        self._submit(job, fresh)

    def _start(self, setup: Setup) -> None:
        self._set_playing(False)
        self.setup = setup
        view = self.view_request()
        source = self.lockstep

        def start() -> list[Frame]:
            source.set_view(view)
            return source.start(setup)

        self._submit(start, fresh=True)

    async def on_stepped(self, message: Stepped) -> None:
        self._in_flight -= 1
        self._running_to_end = self._running_to_end and self._in_flight > 0
        if self._closed:
            return
        if message.fresh and message.frames:
            self.error = None
            self.recording.reset(message.frames[0])
            await self._use_screen(message.frames[0])
            self._show_filter()
            self._show(message.frames[0])
        elif message.redrawn:
            if message.frames and self.recording.redraw_live(message.frames[0]):
                self._show(message.frames[0])
            else:
                self._show_controls()
        elif any([self.recording.append(frame) for frame in message.frames]):
            self._show(message.frames[-1])
        else:
            self._show_controls()
        if not self._in_flight:
            self._settled()
        self.footer_follows()  # done, replaying, another mode

    def on_driver_failed(self, message: DriverFailed) -> None:
        self._in_flight -= 1
        self._running_to_end = self._running_to_end and self._in_flight > 0
        self.error = message.error
        self._backs_pending = 0
        self._set_playing(False)

    # ---- showing frames ---------------------------------------------------------------------

    async def _use_screen(self, frame: Frame) -> None:
        name = "compare" if frame.setup.compare else "single"
        while isinstance(self.screen, ModalScreen):
            await self.pop_screen()
        if self.screen is not self.get_screen(name):
            await self.switch_screen(name)
        self.palette = self._new_palette(frame)
        for pane in self.screen.query(KeyQueuesPane):
            pane.light_key = frame.setup.scenario.light_key
            pane.sort_by = self._sort_by

    def _new_palette(self, frame: Frame) -> KeyPalette:
        variables = self.get_css_variables()
        keys = list(frame.setup.scenario.weights())
        return KeyPalette(keys, theme_colours(variables), verdict_colours(variables))

    def _view(self) -> MainScreen | CompareScreen:
        return self.get_screen("compare" if self.setup.compare else "single")  # type: ignore[return-value]

    def _controls(self) -> Controls:
        replay = None if self.recording.live else self.recording.position
        error = str(self.error) if self.error else None
        interval, instants = SPEEDS[self._speed]
        return Controls(self._playing, self._speed + 1, replay, error, self.busy,
                        round(instants / interval, 1), self._running_to_end)  # fmt: skip

    def _show(self, frame: Frame) -> None:
        if frame.setup.compare == self.setup.compare and self._view().is_mounted:
            self._view().show(frame, self.palette, self._controls())

    def _show_controls(self) -> None:
        frame = self.recording.current
        same_mode = frame is not None and frame.setup.compare == self.setup.compare
        if frame is not None and same_mode and self._view().is_mounted:
            self._view().show_controls(frame, self._controls(), self.palette)

    def _repaint(self) -> None:
        frame = self.recording.current
        if frame is not None:
            self.palette = self._new_palette(frame)
            self._show(frame)

    # ---- stepping, playing, stepping back --------------------------------------------------

    def _advance(self, instant: bool, count: int = 1) -> bool:
        """Replay recorded frames first; at the live end, ask the driver thread for more."""
        current = self.recording.current
        if self._closed or current is None or self.error is not None:
            return False
        if not self.recording.live:
            frame = self.recording.forward_instant() if instant else self.recording.forward()
            if frame is not None:
                self._show(frame)
                return True
        if self.recording.current is not None and self.recording.current.done:
            self._show_controls()
            return False
        if self._in_flight >= MAX_QUEUED:
            return False
        self._submit(lambda: self.lockstep.advance(instant, count))
        return True

    def action_step(self) -> None:
        self._set_playing(False)
        if not self._advance(instant=False):
            self.bell()

    def action_instant(self) -> None:
        self._set_playing(False)
        if not self._advance(instant=True):
            self.bell()

    def action_step_back(self) -> None:
        self._set_playing(False)
        if self._in_flight:
            self._backs_pending += 1  # step back from what the steps already asked for show
            return
        frame = self.recording.back()
        if frame is None:
            self.bell()
        else:
            self._show(frame)
            self.footer_follows()

    def _settled(self) -> None:
        """The driver thread has nothing left to do: apply step-backs asked meanwhile."""
        backs, self._backs_pending = self._backs_pending, 0
        for _ in range(backs):
            self.action_step_back()

    def action_play(self) -> None:
        self._set_playing(not self._playing)

    def _set_playing(self, playing: bool) -> None:
        current = self.recording.current
        finished = current is None or (self.recording.live and current.done)
        self._playing = playing and not finished and self.error is None and not self._closed
        if self._timer is not None:
            (self._timer.resume if self._playing else self._timer.pause)()
        self._show_controls()
        self.footer_follows()

    def _tick(self) -> None:
        if not self._playing or self._in_flight:
            return  # never two steps at once: the next tick waits for this one
        if not self._advance(instant=True, count=SPEEDS[self._speed][1]):
            self._set_playing(False)

    def action_speed(self, change: int) -> None:
        self._speed = max(0, min(len(SPEEDS) - 1, self._speed + change))
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_interval(SPEEDS[self._speed][0], self._tick,
                                        pause=not self._playing)  # fmt: skip
        self._show_controls()

    def action_step_many(self, count: int) -> None:
        """`count` dequeue rounds in one driver job, a frame recorded after each."""
        self._set_playing(False)
        if not self._advance(instant=False, count=count):
            self.bell()

    def action_run_to_end(self) -> None:
        """Every remaining round in one driver job, no frame on the way; only the last frame
        is recorded. The app stays live meanwhile: esc (or > again) stops it where it is."""
        self._set_playing(False)
        if self._running_to_end:
            self.action_stop_run()
            return
        current = self.recording.current
        if self._closed or current is None or self.error is not None or current.done:
            self.bell()
            return
        while not self.recording.live:  # a replay first catches up with the live end
            self.recording.forward()
        self._stop_run.clear()
        self._running_to_end = True
        self._submit(lambda: self.lockstep.run_to_end(self._stop_run.is_set))

    def action_stop_run(self) -> None:
        """Stop a run to the end (its frame shows where it stopped)."""
        if self._running_to_end:
            self._stop_run.set()

    def _refresh_view(self) -> None:
        frame = self.recording.current
        if frame is not None:
            self._show(frame)
