"""Ctrl-C, SIGTERM and SIGHUP: one stop request however many times it is delivered.

A cancelled CI job signals the whole process group, and `uv run` forwards the signal to
ckviz as well: ckviz gets the same stop twice, milliseconds apart. A closed terminal sends
SIGHUP, again to the group. So the first signal asks to stop (raised as KeyboardInterrupt, or
only noted where the caller polls for it); a repeat within GRACE_S of the first is the same
request and is absorbed; a signal later than that is a person insisting, and forces a quit
(ForcedQuit) wherever ckviz is waiting. Nothing interrupts the save itself: signals during
`saving()` are absorbed whatever their timing (writing results takes milliseconds)."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

GRACE_S = 2.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class ForcedQuit(KeyboardInterrupt):
    """A second stop request, more than GRACE_S after the first: stop waiting now."""


class Interrupts:
    """The process's stop requests (one instance, `INTERRUPTS`, installed by the command)."""

    def __init__(self) -> None:
        self.first_at: float | None = None
        self.forced = False
        self._polled = 0
        self._saving = 0

    @property
    def requested(self) -> bool:
        return self.first_at is not None

    def install(self) -> None:
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._handle)

    def done(self) -> None:
        """The command has finished: ignore the stop signals from now on. The interpreter
        puts the default action back on exit, and a late repeat of a stop (a CI runner's
        second SIGTERM) would then kill ckviz and replace its exit code by the signal's."""
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)

    def reset(self) -> None:
        self.first_at, self.forced = None, False

    def _handle(self, signum: int, frame: object) -> None:
        now = time.monotonic()
        if self._saving:
            if self.first_at is None:
                self.first_at = now
            return
        if self.first_at is None:
            self.first_at = now
            if not self._polled:
                raise KeyboardInterrupt
            return
        if now - self.first_at < GRACE_S:
            return  # the same request, delivered again (by `uv run` and by the group)
        self.forced = True
        raise ForcedQuit

    @contextmanager
    def polled(self) -> Iterator[None]:
        """The first request only sets `requested` (the caller checks it between steps):
        no exception lands inside machinery that cannot take one, such as a worker pool."""
        self._polled += 1
        try:
            yield
        finally:
            self._polled -= 1

    @contextmanager
    def saving(self) -> Iterator[None]:
        """Every signal is absorbed (and a first one noted) while the results are saved."""
        self._saving += 1
        try:
            yield
        finally:
            self._saving -= 1


INTERRUPTS = Interrupts()
