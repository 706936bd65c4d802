"""What `x` does in the app: the screenshot at once, then every key's figures off the event
loop (the files themselves are ckviz.player.export's)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import redis
from textual.app import App

from ckviz.errors import CkvizError
from ckviz.model.results import RedisInfo
from ckviz.player.export import export_stem, free_stem, write_export
from ckviz.player.frames import Frame
from ckviz.player.player import Player


def export_here(app: App[int], player: Player, server: RedisInfo | None) -> None:
    """An SVG screenshot, the run as a results file and as CSV, in the current folder."""
    frame = player.recording.current
    if frame is None:
        app.bell()
        return
    folder = Path.cwd()
    stem = free_stem(folder, export_stem(frame))  # an earlier export is kept, never replaced
    try:
        app.save_screenshot(f"{stem}.svg", str(folder))
    except OSError as exc:
        where = exc.filename or folder
        app.notify(f"export failed: {where}: {exc.strerror or exc}", severity="error", markup=False)
        return
    figures = export_figures(app, player, server, frame, folder, stem)
    app.run_worker(figures, group="export")


async def export_figures(
    app: App[int], player: Player, server: RedisInfo | None, frame: Frame, folder: Path, stem: str
) -> None:
    """Every key's figures: a frame carries only the rows its view asked for, so the live
    moment is made again with every row, with each lane's run so far for the results file (a
    recorded moment: its CSVs, from the rows it carries)."""
    made = None
    job = player.export_job()
    if job is not None:
        with contextlib.suppress(CkvizError, redis.RedisError, OSError):
            made = await asyncio.wrap_future(player.run_aside(job))
    try:
        written, note = write_export(frame, made, server, folder, stem)
    except CkvizError as exc:  # the writer's line names the path and the reason
        app.notify(f"export failed: {exc}", severity="error", markup=False)
        return
    kinds = ", ".join(p.name.removeprefix(stem) for p in written)
    app.notify(
        f"wrote {stem}.svg and {stem}{{{kinds}}} in {folder}{note}", title="export", markup=False
    )
