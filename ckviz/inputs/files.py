"""Opening a file ckviz reads (a scenario, a trace, a results file, a shard): only a regular
file. A device (`/dev/zero`), a FIFO or a symlink to one would be read until memory runs out,
or block forever; each is refused with the reason, as an OSError, so every reader's existing
`cannot read: <reason>` line names it."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotRegular(OSError):
    """The path names something other than a regular file."""


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading in binary, or OSError: never blocks, even on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(errno.EINVAL, f"not a regular file ({_kind(mode)})", str(path))
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_regular_text(path: Path) -> str:
    """A regular file's text (UTF-8), or OSError / UnicodeDecodeError."""
    with open_regular(path) as f:
        return f.read().decode("utf-8")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def why(exc: BaseException) -> str:
    """The reason a read failed, as the rest of a `cannot read: ` line."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
