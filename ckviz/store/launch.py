"""Starting and stopping the redis-server ckviz owns, a private one on a unix socket without
persistence; and starting it early, while the command still loads (store/server.py waits for
it to answer and hands it out).

A server started early is taken by the next `embedded_server()` of this process: `--headless`
starts it as soon as it knows the server is its own (no URL), so that its start (a fork, an
exec, the server's own start: 10-20 ms) overlaps the matrix's imports and scenarios."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ckviz.errors import CkvizError
from ckviz.store.workdirs import WORKDIR_PREFIX, remove_stale_workdirs, write_owners

_STOP_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class Launch:
    """A redis-server ckviz started, in a temp folder of its own (socket, log)."""

    process: subprocess.Popen[bytes]
    workdir: Path

    @property
    def socket_path(self) -> Path:
        return self.workdir / "redis.sock"

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def stop(self) -> None:
        """Stop it and remove its folder (again: nothing)."""
        _stop(self.process, self.socket_path)
        shutil.rmtree(self.workdir, ignore_errors=True)


def private_server_command(binary: Path, socket_path: Path, workdir: Path) -> list[str]:
    """`binary` as a private server: a unix socket only (no TCP port), no persistence, in
    the foreground (ckviz, or a test, owns the process)."""
    return [
        str(binary),
        *("--port", "0", "--unixsocket", str(socket_path), "--unixsocketperm", "700"),
        *("--save", "", "--appendonly", "no", "--dir", str(workdir), "--daemonize", "no"),
    ]


def launch(binary: Path) -> Launch:
    """Start `binary` as a private server (it may not answer yet)."""
    remove_stale_workdirs()
    workdir = Path(tempfile.mkdtemp(prefix=WORKDIR_PREFIX))
    write_owners(workdir, os.getpid())
    socket_path = workdir / "redis.sock"
    command = private_server_command(binary, socket_path, workdir)
    command += ["--loglevel", "warning", "--logfile", str(workdir / "redis.log")]
    # A process group of its own keeps the terminal's Ctrl-C (and a signal to ckviz's group)
    # away from the server: ckviz stops it itself, after deleting its keys. Not a session of
    # its own: where Linux groups the scheduling by session (autogroup, the desktop default),
    # the server then shares ckviz's group, in which the workers yield to it (runner.py); in a
    # group of its own it waited for a core twice as long as it ran on a busy machine.
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,
            preexec_fn=functools.partial(die_with_parent, os.getpid()),
        )
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    started = Launch(process, workdir)
    try:
        write_owners(workdir, os.getpid(), process.pid)
    except BaseException:
        started.stop()
        raise
    return started


_early: list[Launch] = []


@contextlib.contextmanager
def started_early(find_binary: Callable[[], Path]) -> Iterator[None]:
    """Start the server now for the next `take_early()` inside; stopped on leaving whoever
    took it. If it cannot be started (no binary), nothing happens here: the usual start
    says why, in its turn (after the command's own checks)."""
    try:
        early = launch(find_binary())
    except (CkvizError, OSError):
        yield
        return
    _early.append(early)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            _early.remove(early)
        early.stop()


def take_early() -> Launch | None:
    """The server started early and not yet taken, if any."""
    return _early.pop() if _early else None


def die_with_parent(parent_pid: int | None = None) -> None:
    """In the child: ask Linux to SIGTERM us if ckviz dies, so no server outlives it.

    If `parent_pid` died before we asked (the signal is not sent retroactively), exit now."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)


def _stop(process: subprocess.Popen[bytes], socket_path: Path) -> None:
    """Stop the server ckviz started (by its own handle, never by name): SHUTDOWN NOSAVE, on
    which it exits at once (on SIGTERM it only notes the request, and exits at its next
    cron tick, up to 100 ms later); SIGTERM if it cannot be asked, SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    if not ask_to_shut_down(socket_path):
        process.terminate()
    try:
        process.wait(timeout=_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def ask_to_shut_down(socket_path: Path) -> bool:
    """Send SHUTDOWN NOSAVE on a connection of its own (not redis-py's: it would retry the
    connection the server closes on exit); True once the server closed it (it is exiting),
    False if it could not be asked or answered (an error: it stays up)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(1.0)
            conn.connect(str(socket_path))
            conn.sendall(b"*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n")
            return conn.recv(1) == b""
    except OSError:
        return False
