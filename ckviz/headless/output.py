"""Where `--out` goes: checked before the first cell, written without ever losing the results.

A regular file is written atomically (a temp file beside it, renamed over it). Anything else
that is writable (`/dev/null`, `/dev/stdout`, a FIFO) is written in place: renaming over it
would replace the device with a JSON file. A symlink is followed, never replaced. If the final
write fails anyway (disk full, a file size limit), the results go to a file in the temp folder
and the error says where.
"""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import tempfile
import time
from pathlib import Path

from ckviz.errors import CkvizError, ExitCode, UsageError


class OutputError(CkvizError):
    """The results could not be written where `--out` said; they went to `fallback`."""

    exit_code = ExitCode.USAGE


def check_out(text: str, force: bool = False, flag: str = "--out") -> Path:
    """A usable `--out`, or a one-line UsageError: found before anything runs. An existing
    file (earlier results, or anything else) is replaced only with `force`."""
    out = Path(text)
    target = Path(os.path.realpath(out))  # through symlinks: we write where they point
    if target.is_dir():
        raise UsageError(f"{flag}: {text} is a directory; give a file path")
    if target.is_file() and not force:
        raise UsageError(
            f"{flag}: {text} already exists; pass --force to overwrite it, or give another path"
        )
    parent = target.parent
    if not parent.exists():
        raise UsageError(f"{flag}: folder {parent} does not exist (create it first)")
    if not parent.is_dir():
        raise UsageError(f"{flag}: {parent} is not a directory")
    if target.exists() and not target.is_file():
        if not os.access(target, os.W_OK):
            raise UsageError(f"{flag}: {text} is not writable")
        return out  # a device or FIFO: written in place
    _probe(text, parent, flag)
    if target.exists() and not os.access(target, os.W_OK):
        raise UsageError(f"{flag}: {text} is not writable")
    return out


def _probe(text: str, folder: Path, flag: str) -> None:
    """Create and remove a file in `folder`: the atomic write needs exactly that."""
    try:
        fd, name = tempfile.mkstemp(prefix=".ckviz-probe-", dir=folder)
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write in {folder} ({_reason(exc)})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name)


def write_out(text: str, out: Path) -> None:
    """Write `text` to `out`; on failure save it in the temp folder and raise OutputError."""
    try:
        _write(text, out)
    except OSError as exc:
        fallback = _fallback(text)
        where = f"results saved to {fallback} instead" if fallback else "results not saved"
        raise OutputError(f"--out: cannot write {out} ({_reason(exc)}); {where}") from None


def _write(text: str, out: Path) -> None:
    target = Path(os.path.realpath(out))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        with open(target, "w", encoding="utf-8") as f:  # a device or FIFO: in place
            f.write(text)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, stat.S_IMODE(mode) if target.exists() else _default_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # never leave a truncated temp file behind
        raise


def _default_mode() -> int:
    umask = os.umask(0o022)  # read it back: there is no getter
    os.umask(umask)
    return 0o666 & ~umask


def _fallback(text: str) -> Path | None:
    name = f"ckviz-results-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.json"
    path = Path(tempfile.gettempdir()) / name
    with contextlib.suppress(ValueError, OSError):
        # a soft file size limit that stopped the first write would stop this one too
        _soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    try:
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__
