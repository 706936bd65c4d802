"""The app's actions on what is on screen: export, zoom, pane focus, help and theme."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import redis
from textual import work
from textual.app import App, SystemCommand
from textual.screen import Screen

from ckviz.errors import CkvizError
from ckviz.model.snapshot import FULL_VIEW, ViewRequest
from ckviz.tui.export import export_stem, write_csv, write_figures
from ckviz.tui.screens.help import HelpScreen
from ckviz.tui.widgets.key_queues import KeyQueuesPane
from ckviz.tui.widgets.pane import Pane

if TYPE_CHECKING:
    from ckviz.tui.lanes import Frame, LaneSource
    from ckviz.tui.recording import Recording


class ScreenActions(App[int]):
    """CkvizApp's base for what acts on the screen rather than on the lanes."""

    recording: Recording
    lockstep: LaneSource
    error: CkvizError | None
    _closed: bool
    _driver_thread: ThreadPoolExecutor

    @property
    def busy(self) -> bool:
        raise NotImplementedError

    def view_request(self) -> ViewRequest:
        raise NotImplementedError

    def action_export(self) -> None:
        """An SVG screenshot, the run's figures as JSON and as CSV, in the current folder."""
        frame = self.recording.current
        if frame is None:
            self.bell()
            return
        folder = Path.cwd()
        try:
            svg = self.save_screenshot(f"{export_stem(frame)}.svg", str(folder))
        except OSError as exc:
            where = exc.filename or folder
            self.notify(f"export failed: {where}: {exc.strerror or exc}", severity="error")
            return
        live = self.recording.live and not self.busy and self.error is None and not self._closed
        self._export_figures(frame, folder, Path(svg).name, live)

    @work(group="export")
    async def _export_figures(self, frame: Frame, folder: Path, svg: str, live: bool) -> None:
        """The figures of every key: a frame carries only the rows its view asked for, so a
        live one is made again with every row (a recorded one: the rows it carries)."""
        if live:
            view, source = self.view_request(), self.lockstep

            def every_key() -> list[Frame]:
                source.set_view(FULL_VIEW)
                try:
                    return source.reframe()
                finally:
                    source.set_view(view)

            loop = asyncio.get_running_loop()
            with contextlib.suppress(CkvizError, redis.RedisError, OSError):
                frame = next(iter(await loop.run_in_executor(self._driver_thread, every_key)),
                             frame)  # fmt: skip
        try:
            written = [write_figures(frame, folder), *write_csv(frame, folder)]
        except OSError as exc:
            where = exc.filename or folder
            self.notify(f"export failed: {where}: {exc.strerror or exc}", severity="error")
            return
        stem = export_stem(frame)
        kinds = ", ".join(p.name.removeprefix(stem) for p in written)
        self.notify(f"wrote {svg} and {stem}{{{kinds}}} in {folder}", title="export")

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's own commands, but its Screenshot writes where `x` does (Textual's saves
        to ~/Downloads and fails with no reason where that folder is missing)."""
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot":
                yield SystemCommand("Screenshot", "SVG + the run as JSON and CSV here (x)",
                                    self.action_export)  # fmt: skip
            else:
                yield command

    def action_zoom(self) -> None:
        """The focused pane (or the per-key table) fills the screen; again to go back."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        target = self.focused if isinstance(self.focused, Pane) else None
        target = target or next(iter(screen.query(KeyQueuesPane)), None)
        if target is not None:
            screen.maximize(target, container=False)

    def action_focus_pane(self, number: int) -> None:
        panes = list(self.screen.query(Pane))
        if 0 < number <= len(panes):
            panes[number - 1].focus()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_toggle_dark(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"
