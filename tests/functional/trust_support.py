"""Helpers for the trust tests: scenarios built in code, `ckviz` as a subprocess, process checks."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from ckviz.model.matrix import Treatment
from ckviz.model.scenario import KeySpec, Scenario
from ckviz.store.launch import private_server_command
from ckviz.store.server import connect, find_redis_server
from tests.functional.cli_support import ckviz_here
from tests.waiting import wait_until, within

MARK = "CKVIZ_TRUST_TEST_MARK"


def scenario(*keys: KeySpec, env_limit: int = 4, name: str = "trust") -> Scenario:
    return Scenario(name=name, env_limit=env_limit, keys=list(keys))


def key(name: str, runs: int, **fields: object) -> KeySpec:
    return KeySpec(name=name, runs=runs, **fields)  # type: ignore[arg-type]


def treatment(discipline: str = "sfq", **caps: int) -> Treatment:
    return Treatment(discipline=discipline, **caps)  # type: ignore[arg-type]


def ckviz_env(**extra: str) -> dict[str, str]:
    """The environment for a `ckviz` subprocess, marked so its descendants can be found: an
    env var the workers inherit, and a private TMPDIR that the embedded server's socket path
    (so its command line) names. Other ckviz runs on the machine do not match either."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CKVIZ_")}
    env[MARK] = uuid.uuid4().hex
    env["TMPDIR"] = tempfile.mkdtemp(prefix="trust-")
    env.update(extra)
    return env


def ckviz_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ckviz", *args]


def run_ckviz(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`ckviz` to completion (never a traceback); its private TMPDIR is removed afterwards."""
    env = env or ckviz_env()
    try:
        proc = subprocess.run(
            ckviz_command(*args), capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
        )
        assert "Traceback" not in proc.stderr, proc.stderr  # never, whatever the outcome
        return proc
    finally:
        shutil.rmtree(env["TMPDIR"], ignore_errors=True)


def refused_here(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`ckviz` in this process, for input refused before any work (never a traceback): the
    refusal is the same as in a subprocess, without an interpreter's start and ckviz's imports.
    Not for an input that could block if the refusal went missing (a FIFO, a device, a long
    search): there the subprocess's timeout is what ends the test."""
    proc = ckviz_here(*args, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def all_output_here(
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`ckviz ARGS` in this process as in a new one (never a traceback), for a test reading all
    it prints: by its streams and by the file descriptors behind them (a logger or a library
    writing to the real stream is caught too). As `ckviz_env` gives a subprocess, no CKVIZ_
    setting of the test's own, only `env`'s (and, as `ckviz_here` runs it, no password kept
    from an earlier run)."""
    for name in [k for k in os.environ if k.startswith("CKVIZ_")]:
        monkeypatch.delenv(name)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    capfd.readouterr()  # nothing of the test's own
    proc = ckviz_here(*args)
    fds = capfd.readouterr()
    assert "Traceback" not in proc.stderr + fds.err, proc.stderr + fds.err
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout + fds.out, proc.stderr + fds.err
    )


def stderr_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip()]


def marked_processes(mark: str) -> list[int]:
    """Live processes (not zombies) whose environment carries `mark`: a run's descendants."""
    found = []
    needle = f"{MARK}={mark}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def embedded_redis_pids(env: dict[str, str]) -> set[int]:
    """redis-server processes the ckviz run with `env` started: their command line names a
    `ckviz-redis-` dir inside that run's private TMPDIR."""
    needle = f"{env['TMPDIR']}/ckviz-redis-"
    out = subprocess.run(["pgrep", "-f", needle], capture_output=True, text=True)
    pids = set()
    for text in out.stdout.split():
        try:
            cmdline = Path(f"/proc/{text}/cmdline").read_bytes()
        except OSError:
            continue
        if b"redis-server" in cmdline and needle.encode() in cmdline:
            pids.add(int(text))
    return pids


def wait_gone(pids: Sequence[int] | set[int], timeout: float = 10.0) -> set[int]:
    """The pids still alive (and not zombies) after waiting up to `timeout` seconds."""
    within(lambda: not any(map(_alive, pids)), timeout)
    return {p for p in pids if _alive(p)}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@contextmanager
def popen_ckviz(*args: str, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """`ckviz` in the background, in a process group of its own; whatever of that group the
    test leaves running is killed on the way out (see `process_group`)."""
    with process_group(ckviz_command(*args), env, stdout=subprocess.PIPE) as proc:
        yield proc


@contextmanager
def process_group(
    command: list[str], env: dict[str, str], stdout: int = subprocess.DEVNULL
) -> Iterator[subprocess.Popen[str]]:
    """`command` in a process group of its own (its id: the pid), as a terminal runs it: a
    signal to the group reaches every process in it. A test that fails (an assert, a
    timeout) has the group killed, not only its leader: a child the leader started (serve's
    apps) would otherwise run on with parent 1. One that ends well and left the leader
    running has it killed the same way; one that ended the leader leaves the rest to its
    `assert_nothing_left`, which would not see a leak this cleaned up first."""
    proc = subprocess.Popen(
        command,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    with group_ended(proc):
        yield proc


@contextmanager
def group_ended(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> Iterator[None]:
    """The group `proc` leads killed if the block fails, or if it ends with `proc` running."""
    try:
        yield
    except BaseException:
        kill_group(proc)
        raise
    if proc.poll() is None:
        kill_group(proc)


def kill_group(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group `proc` leads (by its id, which stays ours while any member
    lives, even after the leader is reaped), then reap the leader."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def wait_for_line(proc: subprocess.Popen[str], needle: str, timeout: float = 60) -> list[str]:
    """Read stderr until a line containing `needle`; the lines read so far."""
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if needle in line:
            return lines
    raise AssertionError(f"no line with {needle!r} in stderr: {lines}")


class OwnRedis:
    """A redis-server this test starts, kills, pauses and restarts on the same socket."""

    def __init__(self, *extra: str, binary: Path | None = None) -> None:
        self.extra = list(extra)  # more redis-server options, e.g. "--maxmemory", "2mb"
        self.binary = binary or find_redis_server()
        self.workdir = Path(tempfile.mkdtemp(prefix="trust-redis-"))
        self.socket = self.workdir / "redis.sock"
        self.url = f"unix://{self.socket}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> OwnRedis:
        command = private_server_command(self.binary, self.socket, self.workdir) + self.extra
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        wait_until(self._answers, "own redis-server to answer")
        return self

    def _answers(self) -> bool:
        client = self.client()
        try:
            return bool(client.ping())
        except (redis.RedisError, OSError):
            return False
        finally:
            client.close()

    def client(self) -> redis.Redis:
        return connect(self.url, socket_timeout=5)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def pause(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def restart(self) -> None:
        self.kill()
        self.start()

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextmanager
def resumed_after(server: OwnRedis, seconds: float) -> Iterator[None]:
    """A paused `server` resumed after `seconds`, or on leaving if sooner: a stall that ends,
    so that a timeout not kept shows as a run that goes on rather than as a slow test."""
    timer = threading.Timer(seconds, server.resume)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        server.resume()


@contextmanager
def own_redis(*extra: str, binary: Path | None = None) -> Iterator[OwnRedis]:
    server = OwnRedis(*extra, binary=binary).start()
    try:
        yield server
    finally:
        server.close()


def children_of(pid: int) -> set[int]:
    """Direct children of `pid` (from /proc/*/stat)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def connections_of(pid: int) -> int:
    """The sockets `pid` holds besides one (a worker's pipe to its parent): its connections."""
    fds = Path(f"/proc/{pid}/fd").iterdir()
    return sum(1 for fd in fds if os.readlink(fd).startswith("socket:")) - 1


def finish(proc: subprocess.Popen[str], timeout: float = 90) -> tuple[int, list[str]]:
    """Wait for the end; the exit code and stderr's non-blank lines, none a traceback."""
    rc = proc.wait(timeout=timeout)
    assert proc.stderr is not None
    lines = [line for line in proc.stderr.read().splitlines() if line.strip()]
    assert not any("Traceback" in line for line in lines), lines
    return rc, lines
