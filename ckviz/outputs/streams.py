"""ckviz's own stdout and stderr, guarded: a terminal that was closed (EIO) or a pipe whose
reader went away (EPIPE, `| head -2`) never costs the results or prints a traceback.

While `guarded_streams()` is active, sys.stdout and sys.stderr drop what can no longer be
written and remember which stream went away; the descriptor is pointed at /dev/null so the
interpreter's last flush cannot fail either. `gone()` says which streams were lost, for the
exit code (`PIPE_CLOSED` when the run itself went well)."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from ckviz.outputs.ci_log import LogNeutraliser, under_actions

_lost: set[str] = set()


class _Guarded:
    """A text stream that stops writing, quietly, once its reader has gone away."""

    def __init__(self, stream: TextIO, name: str) -> None:
        self._stream = stream
        self._name = name
        # A GitHub Actions log acts on lines that look like workflow commands (outputs/ci_log.py)
        self._neutralise = LogNeutraliser() if under_actions() else None

    def write(self, text: str) -> int:
        if self._name in _lost:
            return len(text)
        shown = self._neutralise(text) if self._neutralise is not None else text
        try:
            self._stream.write(shown)
        except UnicodeEncodeError:  # PYTHONIOENCODING=ascii, a C locale: escaped, not a crash
            encoding = self._stream.encoding or "utf-8"
            self._stream.write(shown.encode(encoding, "backslashreplace").decode(encoding))
        except OSError as exc:
            self._give_up(exc)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._name in _lost:
            return
        try:
            self._stream.flush()
        except OSError as exc:
            self._give_up(exc)

    def _give_up(self, exc: OSError) -> None:
        # Gone (EPIPE, EIO) or full: nothing more can be shown there, and the run goes on.
        _lost.add(self._name)
        _to_devnull(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _to_devnull(stream: TextIO) -> None:
    """Point the stream's descriptor at /dev/null: buffered text then goes nowhere, quietly."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


@contextmanager
def guarded_streams() -> Iterator[None]:
    """sys.stdout and sys.stderr guarded for the duration; restored afterwards."""
    saved = sys.stdout, sys.stderr
    sys.stdout = _Guarded(saved[0], "stdout")
    sys.stderr = _Guarded(saved[1], "stderr")
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def gone() -> list[str]:
    """The streams whose reader went away since the process started (`stdout`, `stderr`)."""
    return sorted(_lost)


def write_stdout(data: bytes) -> None:
    """`data` on stdout, whole, or OSError: the caller keeps it elsewhere (results to `-`)."""
    if "stdout" in _lost:
        raise OSError(errno.EPIPE, "stdout was closed")
    sys.stdout.flush()
    out = sys.stdout
    stream: TextIO = out._stream if isinstance(out, _Guarded) else out
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            stream.write(data.decode("utf-8"))
            stream.flush()
    except OSError:
        _lost.add("stdout")
        _to_devnull(stream)
        raise
