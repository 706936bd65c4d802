"""A command's start: importing its modules and reading its inputs makes objects that live as
long as the process (classes, functions, the scenarios). The cycle collector would only trace
them again and again as they pile up: ~130 collections, a full one among them, 30-60 ms of a
`--headless` start (docs/performance.md). So it is off while a command loads; and when the
command is the whole process (`ckviz` run as a program, not `main()` called by a test or a
script), what loading made is then frozen: left out of every later collection, the forked
workers' included, since it lives until the exit anyway."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_whole_process = False


def whole_process() -> None:
    """The entry point's word: this process ends with the command."""
    global _whole_process
    _whole_process = True


@contextmanager
def loading() -> Iterator[None]:
    """No cyclic collection inside; on leaving, collection is back on (if it was on: inside
    another `loading`, the outer one puts it back), what is alive frozen first if the command
    is the whole process."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            if _whole_process:
                gc.freeze()
            gc.enable()
