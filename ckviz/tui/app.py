"""The ckviz terminal app: turns key presses into the player's moves, carries them out off the
event loop, and shows each frame on the screen of its mode."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import ClassVar

import redis
from textual import work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.screen import ModalScreen, Screen
from textual.timer import Timer

from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED
from ckviz.disciplines.registry import check_discipline
from ckviz.errors import CkvizError, ExitCode, RedisUnavailable
from ckviz.inputs.scenario_files import AnyScenario
from ckviz.inputs.scenario_files import load_any as load
from ckviz.model.lineup import Lineup
from ckviz.model.results import RedisInfo
from ckviz.player.frames import Frame, Setup
from ckviz.player.jumps import Jump
from ckviz.player.lanes import LaneSource
from ckviz.player.moves import Ask, Landing, Move, Refused, Result, Show
from ckviz.player.player import Player
from ckviz.player.recording import HISTORY_LIMIT
from ckviz.player.tape import SPEEDS
from ckviz.tui.bindings import bindings
from ckviz.tui.commands import CkvizCommands
from ckviz.tui.messages import DriverCrashed, DriverFailed, Perform, Stepped
from ckviz.tui.palette import KeyPalette, lane_colours, theme_colours, verdict_colours
from ckviz.tui.screens.compare import CompareScreen
from ckviz.tui.screens.lane_screen import LaneScreen
from ckviz.tui.screens.main import MainScreen
from ckviz.tui.signals import quit_on_signals
from ckviz.tui.themes import PROJECTOR, THEMES
from ckviz.tui.widgets.bars.filter_bar import FilterBar
from ckviz.tui.widgets.bars.status import controls_of

PROGRESS_EVERY_S = 0.25  # a long move's progress line is drawn again this often


class CkvizApp(App[int]):
    """Step a scenario's per-key dequeue on a real Redis, one discipline or two side by side.

    The app's own actions move the player (step, play, back, run to the end, the setup) or
    act app-wide (filter, export, theme, help, quit); the screens own the actions on what
    they show and the ones that ask first (ckviz.tui.screens.lane_screen). Every key is in
    one table (ckviz.tui.bindings)."""

    CSS_PATH = Path(__file__).resolve().parent / "ckviz.tcss"  # absolute: subclasses too
    TITLE = "ckviz"
    COMMANDS = App.COMMANDS | {CkvizCommands}
    ESCAPE_TO_MINIMIZE = False  # esc clears a `/` filter first, then leaves a zoom
    BINDINGS: ClassVar[list[BindingType]] = [*bindings("app")]

    def __init__(
        self,
        source: LaneSource,
        scenario: AnyScenario | str = DEFAULT_SCENARIO,
        discipline: str = DEFAULT_DISCIPLINE,
        seed: str = DEFAULT_SEED,
        *,
        compare_with: str | None = None,
        history: int = HISTORY_LIMIT,
        handle_signals: bool = False,
        check_invariants: bool = True,
        consumers: int | Lineup | None = None,
        redis: RedisInfo | None = None,
    ) -> None:
        super().__init__()
        scenario = load(scenario) if isinstance(scenario, str) else scenario
        disciplines = (discipline,) if compare_with is None else (discipline, compare_with)
        for name in disciplines:
            check_discipline(name, "discipline")
        setup = Setup(scenario, seed, disciplines, check_invariants, consumers)
        self.player = Player(source, setup, history)
        self.redis = redis  # the server the lanes run on, as the results file names it
        self.palette = KeyPalette([], [])
        self._timer: Timer | None = None
        self._progress_timer: Timer | None = None  # redraws a long move's progress line
        self._handle_signals = handle_signals

    # ---- lifecycle ----------------------------------------------------------------------

    async def on_mount(self) -> None:
        self.register_theme(PROJECTOR)  # meeting mode's (`t` cycles to it)
        self.install_screen(MainScreen(self.player), "single")
        self.install_screen(CompareScreen(self.player), "compare")
        await self.push_screen("compare" if self.player.setup.compare else "single")
        self._timer = self.set_interval(SPEEDS[self.player.speed][0], self._tick, pause=True)
        self._progress_timer = self.set_interval(PROGRESS_EVERY_S, self._show_progress, pause=True)
        self.theme_changed_signal.subscribe(self, lambda _theme: self._repaint())
        if self._handle_signals:
            quit_on_signals(self, self.action_quit)  # SIGTERM, SIGHUP (a closed terminal)
        self.perform(self.player.start(self.player.setup))

    async def action_quit(self) -> None:
        """Stop what runs, close every lane (their keys are deleted), then exit."""
        if self.player.closed:
            return
        closing = self.player.close_soon()
        self._set_playing(False)
        # If the server is gone, its keys went with it.
        with contextlib.suppress(CkvizError, redis.RedisError, OSError):
            await asyncio.wrap_future(closing)
        self.close_now()
        error = self.player.error
        self.exit(int(error.exit_code if error else ExitCode.OK))

    def close_now(self) -> None:
        """Synchronous last resort (also after `run()` returns): no lane is left open."""
        with contextlib.suppress(CkvizError, redis.RedisError, OSError):
            self.player.close()

    # ---- carrying out the player's moves ----------------------------------------------------

    def perform(self, move: Move) -> None:
        """Show a recorded frame, hand work to the driver thread, or say no."""
        if isinstance(move, Show):
            self._show(move.frame)
        elif isinstance(move, Ask):
            self._await_job(self.player.submit(move), move.landing)
            self._show_controls()  # "stepping" until the frame arrives (on_stepped)
            if self.player.progress is not None and self._progress_timer is not None:
                self._progress_timer.resume()  # a long move: its progress, until it lands
        elif isinstance(move, Refused):
            if move.note is None:
                self.bell()
            else:
                self.notify(move.note, severity=move.severity, markup=False)
            self._show_controls()
        if self._timer is not None and not self.player.playing:
            self._timer.pause()

    @work(group="driver")
    async def _await_job(self, job: Future[Result], landing: Landing) -> None:
        try:
            result = await asyncio.wrap_future(job)
        except CkvizError as exc:
            self.post_message(DriverFailed(exc))
        except (redis.RedisError, OSError) as exc:
            self.post_message(DriverFailed(RedisUnavailable(f"Redis failed: {exc}")))
        except Exception as exc:  # a bug: say so in the app, keep the lanes closable
            self.log.error("driver job failed", exc)
            crash = DriverCrashed(f"unexpected {type(exc).__name__}: {exc}")
            self.post_message(DriverFailed(crash))
        else:
            if isinstance(result, Jump):  # a long move: its frame, and what to tell the user
                if result.note:
                    self.call_later(self.notify, result.note, severity=result.severity)
                result = result.frames
            self.post_message(Stepped(tuple(result), landing))

    async def on_stepped(self, message: Stepped) -> None:
        frame = self.player.landed(list(message.frames), message.landing)
        if self.player.closed:
            return
        if message.landing == "fresh" and frame is not None:
            await self._use_screen(frame)
            self._show_filter()
            self._show(frame)
        elif frame is not None:
            self._show(frame)
        else:
            self._show_controls()
        if not self.player.busy:
            self._settled()
        self._footer_follows()  # done, replaying, another mode

    def _settled(self) -> None:
        """The driver thread has nothing left to do: apply step-backs asked meanwhile."""
        for move in self.player.settled():
            self.perform(move)

    def on_driver_failed(self, message: DriverFailed) -> None:
        self.player.failed(message.error)
        self._set_playing(False)

    def on_perform(self, message: Perform) -> None:
        if message.refresh:
            self._refresh_view()
        self.perform(message.move)
        self._footer_follows()

    # ---- showing frames ---------------------------------------------------------------------

    async def _use_screen(self, frame: Frame) -> None:
        name = "compare" if frame.setup.compare else "single"
        while isinstance(self.screen, ModalScreen):
            await self.pop_screen()
        if self.screen is not self.get_screen(name):
            await self.switch_screen(name)
        self.palette = self._new_palette(frame)
        self._view().use_frame_setup(frame.setup.light_key)

    def _new_palette(self, frame: Frame) -> KeyPalette:
        variables = self.get_css_variables()
        keys = list(frame.setup.key_order())
        lanes = lane_colours(variables)  # compare mode's lanes: a colour and a shape each
        return KeyPalette(keys, theme_colours(variables), verdict_colours(variables), lanes)

    def _view(self) -> MainScreen | CompareScreen:
        screen = self.get_screen("compare" if self.player.setup.compare else "single")
        assert isinstance(screen, MainScreen | CompareScreen)
        return screen

    def _drawn_on(self, frame: Frame) -> MainScreen | CompareScreen | None:
        """The screen to draw `frame` on: its mode's, mounted, while the app runs. Once the
        app shuts down, a driver job's frame or a timer's tick can still land while the
        screens' widgets are being removed: nothing is drawn then."""
        if not self.is_running or frame.setup.compare != self.player.setup.compare:
            return None
        view = self._view()
        return view if view.is_mounted else None

    def _show(self, frame: Frame) -> None:
        if (view := self._drawn_on(frame)) is not None:
            view.show(frame, self.palette, controls_of(self.player))

    def _show_progress(self) -> None:
        """A long move runs: its progress line again (the driver thread moved it on)."""
        if self.player.progress is None and self._progress_timer is not None:
            self._progress_timer.pause()
        self._show_controls()

    def _show_controls(self) -> None:
        frame = self.player.recording.current
        if frame is not None and (view := self._drawn_on(frame)) is not None:
            view.show_controls(frame, controls_of(self.player), self.palette)

    def _refresh_view(self) -> None:
        frame = self.player.recording.current
        if frame is not None:
            self._show(frame)

    def _repaint(self) -> None:
        frame = self.player.recording.current
        if frame is not None:
            self.palette = self._new_palette(frame)
            self._show(frame)

    def _footer_follows(self) -> None:
        if isinstance(self.screen, LaneScreen):
            self.screen.footer_follows()

    # ---- stepping, playing, stepping back --------------------------------------------------

    def action_step(self) -> None:
        self._set_playing(False)
        self.perform(self.player.advance(instant=False))

    def action_instant(self) -> None:
        self._set_playing(False)
        self.perform(self.player.advance(instant=True))

    def action_step_many(self, count: int) -> None:
        """`count` dequeue rounds in one driver job, a frame recorded after each."""
        self._set_playing(False)
        self.perform(self.player.advance(instant=False, count=count))

    def action_step_back(self) -> None:
        self._set_playing(False)
        self.perform(self.player.back())
        self._footer_follows()

    def action_play(self) -> None:
        self._set_playing(not self.player.playing)

    def _set_playing(self, playing: bool) -> None:
        playing = self.player.set_playing(playing)
        if self._timer is not None:
            (self._timer.resume if playing else self._timer.pause)()
        self._show_controls()
        self._footer_follows()

    def _tick(self) -> None:
        move = self.player.tick()
        if isinstance(move, Refused):
            self._set_playing(False)
        elif move is not None:
            self.perform(move)

    def action_speed(self, change: int) -> None:
        interval = self.player.faster(change)
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_interval(interval, self._tick, pause=not self.player.playing)
        self._show_controls()

    def action_run_to_end(self) -> None:
        """Every remaining round in one driver job, no frame on the way; only the last frame
        is recorded. The app stays live meanwhile: esc (or > again) stops it where it is."""
        self._set_playing(False)
        self.perform(self.player.run_to_end())

    # ---- the setup -----------------------------------------------------------------------

    def action_restart(self) -> None:
        if not self.player.closed:
            self.perform(self.player.start(self.player.setup))

    def action_compare(self) -> None:
        self.perform(self.player.toggle_compare())

    # ---- the `/` filter, shared by both modes' screens ------------------------------------------

    def action_filter(self) -> None:
        """Type a key filter; the panes follow each keystroke."""
        self._set_playing(False)
        screen = self.screen
        bar = screen.filter_bar() if isinstance(screen, LaneScreen) else None
        if isinstance(screen, LaneScreen) and bar is not None:
            screen.focus_before = self.focused
            bar.open(self.player.view.key_filter.query)
            screen.footer_follows()

    def action_clear_filter(self) -> None:
        """esc: stops a run to the end or a long move (go to, run until served) where it is;
        else clears the filter; else shows every event again (after a key's story or `f`);
        else leaves a zoomed pane (as Textual's maximize does)."""
        if self.player.stop():
            return
        if self.player.view.key_filter:
            self._use_filter("")
        elif isinstance(self.screen, LaneScreen) and self.screen.events_narrowed():
            self.screen.narrow_events(None)
        elif isinstance(self.screen, LaneScreen) and self.screen.maximized is not None:
            self.screen.action_zoom()

    def on_filter_bar_changed(self, message: FilterBar.Changed) -> None:
        self._use_filter(message.query)

    def on_filter_bar_closed(self, _message: FilterBar.Closed) -> None:
        screen = self.screen
        if isinstance(screen, LaneScreen):
            before = screen.focus_before
            self.set_focus(before if before is not None and before.is_attached else None)
            screen.footer_follows()

    def _use_filter(self, query: str) -> None:
        """Every pane of both modes lists only the keys matching `query` ("" lists all)."""
        move = self.player.filter_keys(query)
        self._show_filter()
        self._refresh_view()
        self.perform(move)
        self._footer_follows()

    def _show_filter(self) -> None:
        """The mode on screen follows the filter in force (the other mode's follows when it
        is shown: its panes may not exist yet)."""
        if isinstance(self.screen, LaneScreen):
            self.screen.show_filter(self.player.view.key_filter)

    # ---- export, help, theme ----------------------------------------------------------------

    def action_export(self) -> None:
        """An SVG screenshot, the run as a results file and as CSV, in the current folder."""
        from ckviz.tui.exporting import export_here  # the results' models: not at start

        export_here(self, self.player, self.redis)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's own commands, but its Screenshot writes where `x` does (Textual's saves
        to ~/Downloads and fails with no reason where that folder is missing)."""
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot":
                yield SystemCommand(
                    "Screenshot", "SVG + the run's results and CSV here (x)", self.action_export
                )
            else:
                yield command

    def action_help(self) -> None:
        from ckviz.tui.screens.help import HelpScreen  # Markdown's parser: not at start

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_toggle_dark(self) -> None:
        """Dark, light, then the projector theme (high contrast, for a meeting room)."""
        place = THEMES.index(self.theme) if self.theme in THEMES else -1
        self.theme = THEMES[(place + 1) % len(THEMES)]
