"""`ckviz watch`'s app: a live queue refreshed every interval into the panes a simulated run
is drawn in. The moves are the tape's (ckviz.player.tape): `space` pauses and resumes, back and
forward move through the refreshes kept; a lost server is said on the status line (exit 3 on
quitting), a drained or vanished queue is shown as such.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import ClassVar

import redis
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.timer import Timer

from ckviz.errors import CkvizError, ExitCode, RedisUnavailable
from ckviz.live.names import LiveQueue
from ckviz.player.frames import Frame
from ckviz.player.jumps import Jump
from ckviz.player.live_source import LiveSource
from ckviz.player.moves import Ask, Landing, Move, Refused, Result, Show
from ckviz.player.story import story_of
from ckviz.player.tape import Tape
from ckviz.tui.messages import DriverFailed, Stepped
from ckviz.tui.palette import KeyPalette, theme_colours, verdict_colours
from ckviz.tui.screens.pickers import Picker
from ckviz.tui.screens.story import StoryScreen
from ckviz.tui.screens.watch import WatchScreen
from ckviz.tui.screens.why import WhyScreen
from ckviz.tui.widgets.bars.watch_status import WatchControls
from ckviz.tui.widgets.key_rows import KeyRowsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane

KEPT = 600  # refreshes kept for back and forward (ten minutes at the default interval)

OpenSource = Callable[[LiveQueue], LiveSource]


class WatchApp(App[int]):
    """One live queue at a time, refreshed while live; the queues found to pick from."""

    CSS_PATH = Path(__file__).resolve().parent / "ckviz.tcss"
    TITLE = "ckviz watch"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,p", "pause", "Pause / resume", id="watch.pause"),
        Binding("left,b", "step_back", "Back", key_display="←", id="watch.back"),
        Binding("right,f", "forward", "Forward", key_display="→", id="watch.forward"),
        Binding("r", "retry", "Read now", id="watch.retry"),
        Binding("w", "why", "Why", id="watch.why"),
        Binding("enter", "story", "Key's story", id="watch.story"),
        Binding("o", "sort_keys", "Sort", id="watch.sort"),
        Binding("l", "pick_queue", "Queues", id="watch.queues"),
        Binding("q,ctrl+c", "quit", "Quit", id="watch.quit"),
    ]

    def __init__(
        self,
        queues: Sequence[LiveQueue],
        open_source: OpenSource,
        lines: Mapping[LiveQueue, str] | None = None,
        kept: int = KEPT,
    ) -> None:
        super().__init__()
        self.queues = list(queues)  # one: watched at once; several: picked from a list
        self.lines = dict(lines or {})  # each queue's size, as found, under its name
        self._open_source = open_source
        self._kept = kept
        self.tape: Tape | None = None
        self.watching: LiveQueue | None = None
        self.palette = KeyPalette([], [])
        self._timer: Timer | None = None
        self._lost: CkvizError | None = None  # the last failure, for the exit code

    async def on_mount(self) -> None:
        self.palette = KeyPalette(
            [], theme_colours(self.get_css_variables()), verdict_colours(self.get_css_variables())
        )
        await self.push_screen(WatchScreen())
        if len(self.queues) == 1:
            self.open_queue(self.queues[0])
        else:
            self.action_pick_queue()

    # ---- which queue ------------------------------------------------------------------------

    def action_pick_queue(self) -> None:
        """The queues found under the prefix, each with its size; enter watches one."""
        if isinstance(self.screen, Picker) or len(self.queues) < 2:
            return
        names = choice_names(self.queues)
        lines = {
            n: self.lines[q] for n, q in zip(names, self.queues, strict=True) if q in self.lines
        }
        current = names[self.queues.index(self.watching)] if self.watching else names[0]

        def chosen(name: str | None) -> None:
            if name in names:
                self.open_queue(self.queues[names.index(name)])
            elif self.tape is None:
                self.exit(int(ExitCode.OK))  # nothing picked, nothing watched

        picker = Picker(f"Queues found ({len(names)})", names, current, descriptions=lines)
        self.push_screen(picker, chosen)

    def open_queue(self, queue: LiveQueue) -> None:
        """Let go of the queue watched, if any, and watch `queue` from its first refresh."""
        if self.tape is not None:
            self.tape.close_soon()
        source = self._open_source(queue)
        self.watching = queue
        self.tape = Tape(source, source.watched, self._kept)
        self._lost = None
        self.tape.playing = True  # live from the first refresh (set_playing wants a frame)
        self.perform(Ask(lambda: source.advance(), "fresh"))

    # ---- the moves ----------------------------------------------------------------------------

    def perform(self, move: Move) -> None:
        """Show a kept refresh, read the queue again on the driver thread, or say no."""
        tape = self.tape
        if tape is None:
            return
        if isinstance(move, Show):
            self._show(move.frame)
        elif isinstance(move, Ask):
            self._await_job(tape, tape.submit(move), move.landing)
            self._show_controls()
        elif isinstance(move, Refused):
            self.bell()

    @work(group="driver")
    async def _await_job(self, tape: Tape, job: Future[Result], landing: Landing) -> None:
        try:
            result = await asyncio.wrap_future(job)
        except CkvizError as exc:
            failure: CkvizError | None = exc
        except (redis.RedisError, OSError) as exc:
            failure = RedisUnavailable(f"lost the watched server: {exc}")
        else:
            failure = None
        if tape is not self.tape:  # a queue let go of meanwhile: its news is nobody's
            return
        if failure is not None:
            self.post_message(DriverFailed(failure))
        else:
            frames = result.frames if isinstance(result, Jump) else result
            self.post_message(Stepped(tuple(frames), landing))

    def on_stepped(self, message: Stepped) -> None:
        tape = self.tape
        if tape is None:
            return
        frame = tape.landed(list(message.frames), message.landing)
        if frame is not None:
            self._show(frame)
        else:
            self._show_controls()
        self._schedule()

    def on_driver_failed(self, message: DriverFailed) -> None:
        if self.tape is None:
            return
        self.tape.failed(message.error)
        self._lost = message.error
        self._show_controls()

    def _schedule(self) -> None:
        """The next refresh, the source's wait from now (backed off when over budget)."""
        tape = self.tape
        if self._timer is not None:
            self._timer.stop()
        if tape is None or not tape.playing or tape.busy:
            return
        source = tape.source
        wait = source.wait_s if isinstance(source, LiveSource) else 1.0
        self._timer = self.set_timer(wait, self._tick)

    def _tick(self) -> None:
        tape = self.tape
        if tape is not None and tape.playing and not tape.busy:
            self.perform(tape.advance(instant=False))

    def action_pause(self) -> None:
        """Pause (refreshes stop, the picture stays), or resume live from a fresh refresh."""
        tape = self.tape
        if tape is None or tape.error is not None:
            return
        if tape.playing:
            tape.set_playing(False)
            self._schedule()
            self._show_controls()
            return
        while not tape.recording.live:
            tape.recording.forward()
        tape.set_playing(True)
        self.perform(tape.advance(instant=False))

    def action_step_back(self) -> None:
        tape = self.tape
        if tape is not None:
            tape.set_playing(False)
            self._schedule()
            self.perform(tape.back())

    def action_forward(self) -> None:
        """The next refresh kept; at the live end, a refresh now (paused: one more picture)."""
        tape = self.tape
        if tape is not None and tape.error is None:
            tape.set_playing(False)
            self._schedule()
            self.perform(tape.advance(instant=False))

    def action_retry(self) -> None:
        """After a failure, try again (a server back, a queue found again); else read now."""
        tape = self.tape
        if tape is None or tape.busy:
            return
        tape.error = None
        self._lost = None
        tape.set_playing(True)
        while not tape.recording.live:
            tape.recording.forward()
        self.perform(tape.advance(instant=False))

    def action_sort_keys(self) -> None:
        """The per-key table's next order: as read, queued, out, age, wait (largest first)."""
        tape, screen = self.tape, self._screen()
        if tape is None or screen is None:
            return
        move = tape.next_sort()
        for pane in screen.query(KeyQueuesPane):
            pane.sort_by = tape.view.sort_by
        current = tape.recording.current
        if current is not None:
            self._show(current)  # a kept refresh: its rows, re-sorted by the pane
        self.perform(move)

    def action_why(self) -> None:
        """Why the next dequeue takes what it takes, candidate by candidate."""
        frame = self.tape.recording.current if self.tape is not None else None
        if frame is None or isinstance(self.screen, WhyScreen):
            self.bell()
            return
        self.push_screen(WhyScreen(frame.snapshots, self.palette))

    def action_story(self) -> None:
        """The story of the key under the focused pane's cursor: a live read keeps no per-run
        history, so it says what is known (the runs queued and held now)."""
        frame = self.tape.recording.current if self.tape is not None else None
        focused = self.focused
        key = focused.cursor_key if isinstance(focused, KeyRowsPane) else None
        if frame is None or key is None:
            self.bell()
            return
        stories = [story_of(snapshot, key, lane) for lane, snapshot in enumerate(frame.snapshots)]
        self.push_screen(StoryScreen(frame.setup.title, stories, self.palette))

    async def action_quit(self) -> None:
        """Stop refreshing and exit: 3 if the watched server was lost, else 0."""
        if self.tape is not None:
            closing = self.tape.close_soon()
            with contextlib.suppress(CkvizError, redis.RedisError, OSError):
                await asyncio.wrap_future(closing)
        self.exit(int(self._lost.exit_code) if self._lost is not None else int(ExitCode.OK))

    # ---- showing ------------------------------------------------------------------------------

    def _controls(self) -> WatchControls:
        tape = self.tape
        if tape is None:
            return WatchControls()
        replay = None if tape.recording.live else tape.recording.position
        error = str(tape.error) if tape.error is not None else None
        return WatchControls(tape.playing, replay, error, tape.busy)

    def _screen(self) -> WatchScreen | None:
        """The watch's screen while a frame may be drawn on it: mounted, while the app runs
        (once it shuts down, a refresh can still land as the screen's widgets are removed)."""
        if not self.is_running:
            return None
        screen = next((s for s in self.screen_stack if isinstance(s, WatchScreen)), None)
        return screen if screen is not None and screen.is_mounted else None

    def _show(self, frame: Frame) -> None:
        if (screen := self._screen()) is not None:
            screen.show(frame, self.palette, self._controls())

    def _show_controls(self) -> None:
        frame = self.tape.recording.current if self.tape is not None else None
        screen = self._screen()
        if screen is None:
            return
        if frame is not None:
            screen.show_controls(frame, self._controls())
        elif (error := self._controls().error) is not None:  # the first read failed
            screen.show_error(error)


def choice_names(queues: Sequence[LiveQueue]) -> list[str]:
    """How the picker names each queue: `org/project/env: name`, numbered where two nodes of
    a cluster hold the same name."""
    names = [q.shown for q in queues]
    return [
        name if names.count(name) == 1 else f"{name} ({names[:n].count(name) + 1})"
        for n, name in enumerate(names)
    ]
