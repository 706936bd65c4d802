"""`--record`: the session as the terminal saw it. Textual sends every byte of the screen
through its driver's `write`, so a driver that passes each write on and keeps a timed copy
records exactly what the terminal was sent, escape sequences and all (nothing is read back
off the screen). The copy streams to the file as it goes: a session in play mode sends some
hundreds of KB a second, too much to keep in memory for a meeting's length."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from textual.app import App
from textual.driver import Driver
from textual.geometry import Size

from ckviz.errors import echo
from ckviz.model.asciicast import OUTPUT, RESIZE, event_line, header_line
from ckviz.outputs.writer import Output, OutputError, streamed_output


class CastRecorder:
    """Timed events to an asciicast stream; a failed write (a full disk) stops the recording
    and is kept to be reported once the app has ended, never raised into the drawing."""

    def __init__(self, write: Callable[[str], None], size: Size, title: str) -> None:
        self._sink = write
        self.size = size
        self.start = time.monotonic()
        self.error: OSError | None = None
        self._write(header_line(size.width, size.height, int(time.time()), title))

    def output(self, data: str, size: Size) -> None:
        at = time.monotonic() - self.start
        if size != self.size:  # a resize is applied before the frames drawn at its size
            self.size = size
            self._write(event_line(at, RESIZE, f"{size.width}x{size.height}"))
        self._write(event_line(at, OUTPUT, data))

    def _write(self, line: str) -> None:
        if self.error is not None:
            return
        try:
            self._sink(line)
        except OSError as exc:
            self.error = exc


def recording_driver(base: type[Driver], recorder: CastRecorder) -> type[Driver]:
    """`base` (the driver Textual chose) with every write also given to `recorder`."""

    class RecordingDriver(base):  # type: ignore[valid-type, misc]
        def write(self, data: str) -> None:
            recorder.output(data, self._app.size)
            super().write(data)

    return RecordingDriver


@contextmanager
def recorded(app: App[Any], out: Output | None, title: str) -> Iterator[None]:
    """Record `app`'s session into `out` while the block runs (nothing when `out` is None)."""
    if out is None:
        yield
        return
    with streamed_output(out) as write:
        width, height = shutil.get_terminal_size()  # as Textual sizes its first screen
        recorder = CastRecorder(write, Size(width, height), title)
        app.driver_class = recording_driver(app.driver_class, recorder)
        yield
        if recorder.error is not None:
            reason = recorder.error.strerror or recorder.error
            raise OutputError(
                f"{out.flag}: cannot write {echo(out.text, 4096)} ({reason}); the session was "
                "not saved"
            )
