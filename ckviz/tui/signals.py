"""The app quits on SIGTERM as on `q`, and on SIGHUP (a closed terminal) without writing to
the terminal again: when it is made with `handle_signals`, as launch.py makes it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable

from textual.app import App

Quit = Callable[[], Awaitable[None]]


def quit_on_signals(app: App[int], quit: Quit) -> None:
    """SIGTERM and SIGHUP call `quit` on the app's event loop."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: app.call_next(quit))
    terminal = terminal_fds()
    signal.signal(signal.SIGHUP, lambda *_: hung_up(app, quit, loop, terminal))


def terminal_fds() -> list[int]:
    """stdout and stderr, those on a terminal (Textual writes to one of them)."""
    return [fd for fd in (1, 2) if os.isatty(fd)]


def hung_up(
    app: App[int], quit: Quit, loop: asyncio.AbstractEventLoop, terminal: list[int]
) -> None:
    """SIGHUP, a closed terminal: every write to it fails from now on, a failed write ends
    Textual's writer thread (and exiting waits for it forever), and the SIGCONT that comes
    with the hangup would start application mode again on the dead terminal. So, before
    that SIGCONT is handled (a lower signal number: Python runs this handler first): the
    writes go to /dev/null, SIGCONT does nothing more, then quit as `q` does."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in terminal:
            os.dup2(devnull, fd)
        os.close(devnull)
    signal.signal(signal.SIGCONT, signal.SIG_DFL)
    loop.call_soon_threadsafe(app.call_next, quit)
