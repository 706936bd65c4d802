"""`ckviz watch`'s app, started: on one queue, or on a list of the queues found to pick from.
The command finds the queues and makes the readers (ckviz.commands.watch); the app only
reads through them."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence

import redis

from ckviz.errors import CkvizError, ExitCode
from ckviz.live.discover import FoundQueue
from ckviz.live.names import LiveQueue
from ckviz.live.picture import LivePicture
from ckviz.player.live_source import LiveSource, Watched
from ckviz.tui.watch_app import WatchApp

Read = Callable[[], LivePicture]


def run_watch(
    queue: LiveQueue, server: str, read: Read, interval_s: float = 1.0, budget_ms: float = 5.0
) -> int:
    """Watch `queue` (`read` makes one picture of it; `server` is shown, redacted) until the
    user quits; the exit code (3: the watched server was lost)."""
    return _run([queue], {}, lambda _queue: read, server, interval_s, budget_ms)


def run_picker(
    found: Sequence[FoundQueue],
    reader: Callable[[FoundQueue], Read],
    server: str,
    interval_s: float = 1.0,
    budget_ms: float = 5.0,
) -> int:
    """The queues `found`, to pick one to watch (and `l` to pick another); as run_watch."""
    by_queue = {f.queue: f for f in found}
    now_ms = time.time() * 1000  # this machine's clock: the list's ages are a guide
    lines = {f.queue: f.line(now_ms) for f in found}
    return _run(
        list(by_queue), lines, lambda queue: reader(by_queue[queue]), server, interval_s, budget_ms
    )


def _run(
    queues: list[LiveQueue],
    lines: dict[LiveQueue, str],
    read_of: Callable[[LiveQueue], Read],
    server: str,
    interval_s: float,
    budget_ms: float,
) -> int:
    def open_source(queue: LiveQueue) -> LiveSource:
        return LiveSource(Watched(queue, server, interval_s, budget_ms), read_of(queue))

    app = WatchApp(queues, open_source, lines)
    result = app.run()
    if app.tape is not None:
        with contextlib.suppress(CkvizError, redis.RedisError, OSError):
            app.tape.close()
    return int(ExitCode.OK) if result is None else int(result)
