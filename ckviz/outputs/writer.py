"""The one writer of every file ckviz writes: results, reports, JUnit, the Markdown summary,
hunt's found file, merge, the app's exports and its recorded sessions.

One set of rules, checked before the work and kept when writing:
- `-` (or `/dev/stdout`) is standard output.
- A regular file is written whole or not at all: a temp file beside it, then linked (new
  file) or renamed (`--force`) into place; the temp file is removed on any failure, so a full
  disk leaves nothing half-written. A symlink is followed: its target is written, the link kept.
- An existing file is replaced only with `--force`, and only the file that was there when it
  was checked: if another run wrote the path meanwhile, nothing is overwritten and the text
  is saved beside it under a new name, and the error line says where.
- A character device or a FIFO is written in place, never renamed over (that would replace
  `/dev/null` with a file). A FIFO nobody reads times out. Other special files are refused.
- Every output goes through one stream (`streamed_output`), written as it is made: a large
  text (a results file of 100,000 keys, the app's recorded session) is never held whole.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ckviz.errors import CkvizError, ExitCode, UsageError, echo
from ckviz.outputs.streams import write_stdout

STDOUT_NAMES = frozenset({"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
ENV_FIFO_TIMEOUT = "CKVIZ_FIFO_TIMEOUT"
DEFAULT_FIFO_TIMEOUT_S = 10.0


class OutputError(CkvizError):
    """An output could not be written where its flag said (one line; says where it went)."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class Output:
    """A place ckviz will write, checked. `path` is None for standard output."""

    text: str  # as the user gave it, for messages
    flag: str  # the flag (or what) that named it: `--out`, `--junit`, `export`
    path: Path | None
    force: bool = False
    seen: tuple[int, int, int] | None = None  # the regular file there when checked

    @property
    def is_stdout(self) -> bool:
        return self.path is None

    def __str__(self) -> str:
        return "stdout" if self.path is None else self.text


def _path(text: str) -> str:
    """A path as a message shows it: control characters escaped, not cut (the whole path is
    what the user needs; the line as a whole is still bounded)."""
    return echo(text, limit=4096)


def check_output(text: str, flag: str, force: bool = False) -> Output:
    """A usable output, or a one-line UsageError naming `flag`: called before any work."""
    if text in STDOUT_NAMES:
        return Output(text, flag, None, force)
    shown = _path(text)
    path = Path(text)
    target = Path(os.path.realpath(path))  # through symlinks: we write where they point
    try:
        mode: int | None = target.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # the folder checks below say why
        mode = None
    except OSError as exc:
        raise UsageError(f"{flag}: cannot use {shown} ({_reason(exc)})") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"{flag}: {shown} is a directory; give a file path")
    if mode is not None and not stat.S_ISREG(mode):
        return _special(text, flag, path, target, mode, force)
    if mode is not None and not force:
        raise UsageError(
            f"{flag}: {shown} already exists; pass --force to overwrite it, or give another path"
        )
    parent = target.parent
    if not parent.exists():
        raise UsageError(f"{flag}: folder {_path(str(parent))} does not exist (create it first)")
    if not parent.is_dir():
        raise UsageError(f"{flag}: {_path(str(parent))} is not a directory")
    _probe(parent, flag)
    if mode is not None and not os.access(target, os.W_OK):
        raise UsageError(f"{flag}: {shown} is not writable")
    return Output(text, flag, path, force, _identity(target))


def _special(text: str, flag: str, path: Path, target: Path, mode: int, force: bool) -> Output:
    """A character device or FIFO, written in place; anything else is refused."""
    shown = _path(text)
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        kind = "a block device" if stat.S_ISBLK(mode) else "a special file"
        raise UsageError(f"{flag}: {shown} is {kind}; give a file path")
    if not os.access(target, os.W_OK):
        raise UsageError(f"{flag}: {shown} is not writable")
    return Output(text, flag, path, force)


def _probe(folder: Path, flag: str) -> None:
    """Create and remove a file in `folder`: the whole-or-nothing write needs exactly that."""
    try:
        fd, name = tempfile.mkstemp(prefix=".ckviz-probe-", dir=folder)
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write in {_path(str(folder))} ({_reason(exc)})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name)


def write_output(out: Output, text: str, rescue: bool = False) -> None:
    """Write `text` where `out` says, or raise OutputError (one line). With `rescue` (the
    results), a failed write saves the text in the temp folder and the line says where."""
    write_pieces(out, lambda: (text,), rescue)


Pieces = Callable[[], Iterable[str]]  # makes the text, piece by piece, each time it is called
Write = Callable[[str], None]


CHUNK_BYTES = 1 << 20  # pieces are joined to about this much before each write


def write_pieces(out: Output, pieces: Pieces, rescue: bool = False) -> None:
    """write_output for a text made piece by piece (`pieces()`; called again to save a copy
    when the first write fails), so the whole text is never in memory at once."""
    saving = pieces if rescue else None
    try:
        with streamed_output(out, saving) as write:
            for chunk in _chunks(pieces):
                write(chunk)
    except OSError as exc:  # a write's own (the stream's other failures are OutputErrors)
        raise _failed(out, exc, saving) from None


def _chunks(pieces: Pieces) -> Iterator[str]:
    """The text in writes of about CHUNK_BYTES (a piece may be a single comma)."""
    batch: list[str] = []
    size = 0
    for piece in pieces():
        batch.append(piece)
        size += len(piece)
        if size >= CHUNK_BYTES:
            yield "".join(batch)
            batch, size = [], 0
    if batch:
        yield "".join(batch)


@contextlib.contextmanager
def streamed_output(out: Output, rescue: Pieces | None = None) -> Iterator[Write]:
    """The one way ckviz writes an output: the text goes through the `write(text)` yielded as
    it is made (the app's recorded session, too long to keep in memory; a results file of
    100,000 keys). Unbuffered, so a write's error (a full disk) is raised by that write, to
    its caller, as the OSError it is. A regular file is a temp file beside the target until
    the block ends, then into place by the rules above; a device or FIFO is written in place.
    An exception in the block leaves nothing and passes through as it is; the writer's own
    failures (opening, syncing, placing) are OutputErrors, and with `rescue` (the results'
    pieces, made again) the text is saved in the temp folder and the line says where."""
    in_block = False
    try:
        with _stream(out) as write:
            in_block = True
            yield write
            in_block = False
    except (OSError, _Conflict) as exc:
        if in_block:
            raise
        raise _failed(out, exc, rescue) from None


@contextlib.contextmanager
def _stream(out: Output) -> Iterator[Write]:
    """streamed_output's writing; its failures are raised as they are (OSError, _Conflict)."""
    if out.path is None:
        yield lambda text: write_stdout(text.encode("utf-8"))
        return
    target = Path(os.path.realpath(out.path))
    mode = _mode(target)
    if mode is not None and not stat.S_ISREG(mode):
        fd = _open_fifo(target) if stat.S_ISFIFO(mode) else _open_device(target)
        try:
            yield lambda text: _write_all(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
        return
    fd, tmp = _new_temp(target, mode)
    try:
        try:
            yield lambda text: _write_all(fd, text.encode("utf-8"))
            os.fsync(fd)  # a full disk shows here on file systems that delay the allocation
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _place(out, target, tmp)


def _failed(out: Output, exc: OSError | _Conflict, rescue: Pieces | None) -> OutputError:
    """The one line a failed output is: left alone for another run's file, or why it could not
    be written (and, with `rescue`, where the results were saved instead)."""
    shown = _path(out.text)
    if isinstance(exc, _Conflict):
        return OutputError(
            f"{out.flag}: {shown} was written by someone else while ckviz ran, so it was left "
            f"alone; {_saved(exc.saved)}"
        )
    where = ""
    if rescue is not None:
        saved = rescue_copy(rescue)
        where = f"; results saved to {saved} instead" if saved else "; results not saved"
    return OutputError(f"{out.flag}: cannot write {shown} ({_reason(exc)}){where}")


def append_output(path: Path, text: str, flag: str) -> None:
    """Append to `path` (a job summary file others append to as well), in place."""
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise OutputError(f"{flag}: cannot write {_path(str(path))} ({_reason(exc)})") from None


def _saved(path: Path | None) -> str:
    return f"saved to {path}" if path else "not saved anywhere"


class _Conflict(Exception):
    def __init__(self, saved: Path | None) -> None:
        super().__init__()
        self.saved = saved


def _mode(target: Path) -> int | None:
    try:
        return target.stat().st_mode
    except FileNotFoundError:
        return None


def _identity(target: Path) -> tuple[int, int, int] | None:
    """Which file is at `target` now (device, inode, change time), None for none."""
    try:
        st = target.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_ctime_ns)


def _place(out: Output, target: Path, tmp: str) -> None:
    """The finished temp file `tmp` into place at `target` (then gone, whatever happens)."""
    try:
        if _identity(target) != out.seen:  # another run wrote it since the check
            raise _Conflict(_keep_beside(tmp, target))
        if out.seen is not None:  # --force, and still the file that was checked
            os.replace(tmp, target)
            return
        try:
            os.link(tmp, target)  # fails if the name appeared meanwhile: never overwrites
        except FileExistsError:
            raise _Conflict(_keep_beside(tmp, target)) from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EMLINK):
                raise
            os.replace(tmp, target)  # a file system without hard links
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _open_device(target: Path) -> int:
    return os.open(target, os.O_WRONLY | os.O_NOCTTY)


def _new_temp(target: Path, mode: int | None) -> tuple[int, str]:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.fchmod(fd, stat.S_IMODE(mode) if mode is not None else _default_mode())
    return fd, tmp


def _temp_copy(target: Path, pieces: Pieces) -> str:
    """The text in a new temp file beside `target` (its mode, or the default); removed again
    if anything fails, a full disk included."""
    fd, tmp = _new_temp(target, _mode(target))
    try:
        for chunk in _chunks(pieces):
            _write_all(fd, chunk.encode("utf-8"))
        os.fsync(fd)  # a full disk shows here on file systems that delay the allocation
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


def _keep_beside(tmp: str, target: Path) -> Path | None:
    """The text under a fresh name beside `target` (`results.<pid>.json`), or None."""
    for n in range(100):
        extra = f".{os.getpid()}" + (f"-{n}" if n else "")
        alt = target.with_name(f"{target.stem}{extra}{target.suffix}")
        try:
            os.link(tmp, alt)
            return alt
        except FileExistsError:
            continue
        except OSError:
            return None
    return None


def fifo_timeout() -> float:
    """Seconds to wait for a FIFO's reader (CKVIZ_FIFO_TIMEOUT; a bad value: the default)."""
    try:
        seconds = float(os.environ.get(ENV_FIFO_TIMEOUT, DEFAULT_FIFO_TIMEOUT_S))
    except ValueError:
        return DEFAULT_FIFO_TIMEOUT_S
    return seconds if 0 <= seconds < float("inf") else DEFAULT_FIFO_TIMEOUT_S


def _open_fifo(target: Path) -> int:
    """Open a FIFO for writing once a reader has it open: a plain open would block forever."""
    deadline = time.monotonic() + fifo_timeout()
    while True:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            if time.monotonic() >= deadline:
                raise OSError(errno.ETIMEDOUT, f"no reader after {fifo_timeout():g} s") from None
            time.sleep(0.05)
            continue
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _default_mode() -> int:
    umask = os.umask(0o022)  # read it back: there is no getter
    os.umask(umask)
    return 0o666 & ~umask


def rescue_copy(pieces: Pieces) -> Path | None:
    """The results in the temp folder when their own place failed (whole, or not at all)."""
    import resource

    with contextlib.suppress(ValueError, OSError):
        # a soft file size limit that stopped the first write would stop this one too
        _soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    name = f"ckviz-results-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.json"
    path = Path(tempfile.gettempdir()) / name
    try:
        tmp = _temp_copy(path, pieces)
    except OSError:
        return None
    try:
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return None
    return path


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__
