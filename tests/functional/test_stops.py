"""Stopping ckviz the ways people and CI do: a signal to the whole process group (a cancelled
CI job), delivered twice because a wrapper such as `uv run` forwards it while ckviz gets it
directly; the same request repeated; a person insisting later; a terminal that is closed
(a pty whose master goes away); a pipe whose reader quits (`| head -2`). Each keeps the
results, and never prints a traceback."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from ckviz.errors import ExitCode
from tests.functional.test_faults_cli import assert_nothing_left
from tests.functional.trust_support import (
    children_of,
    ckviz_command,
    ckviz_env,
    connections_of,
    finish,
    group_ended,
    own_redis,
    process_group,
    wait_for_line,
)
from tests.waiting import wait_until

MATRIX = ("--headless", "--scenario", "ck_skew", "--scenario", "ck_trickle")  # 48 cells
ONE_CELL = ("--headless", "--scenario", "ck_trickle", "--discipline", "sfq", "--seeds", "seed-a")
EIGHT_CELLS = ("--headless", "--scenario", "ck_trickle", "--seeds", "seed-a")  # run to its end

# What `uv run` does with a signal: pass it on to its child, then wait for it. In a process
# group (as a CI runner starts a job) the child also gets the group's signal itself. Once the
# child is gone the wrapper ignores them, as ckviz does once done: the interpreter puts the
# default actions back as it exits, and a late repeat killed the wrapper, not ckviz, so its
# exit code was the signal's (seen once, with a repeat 0.1 s after ckviz's last line).
FORWARDER = """
import signal, subprocess, sys
child = subprocess.Popen(sys.argv[1:])
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, lambda signum, frame: child.send_signal(signum))
code = child.wait()
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
sys.exit(code)
"""


def group(*args: str, env: dict[str, str]) -> AbstractContextManager[subprocess.Popen[str]]:
    """ckviz behind a forwarding wrapper, both in a new process group (its id: the pid)."""
    return process_group([sys.executable, "-c", FORWARDER, *ckviz_command(*args)], env)


def partial(out: Path) -> dict:
    results = json.loads(out.read_text())
    assert results["complete"] is False and results["error"] == "interrupted (Ctrl-C)"
    return results


def runs_in(results: dict) -> int:
    return sum(len(s["runs"]) for s in results["scenarios"])


@pytest.mark.parametrize(
    ("signum", "jobs"),
    [(signal.SIGINT, "1"), (signal.SIGTERM, "1"), (signal.SIGHUP, "1"), (signal.SIGINT, "2"),
     (signal.SIGTERM, "2"), (signal.SIGHUP, "2")],
)  # fmt: skip
@pytest.mark.slow
def test_a_signal_to_the_whole_group_keeps_the_results(
    tmp_path: Path, signum: signal.Signals, jobs: str
) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with group(*MATRIX, "--out", str(out), "--jobs", jobs, env=env) as proc:
        wait_for_line(proc, "/48] ")
        os.killpg(proc.pid, signum)  # the wrapper passes it on: ckviz gets it twice
        rc, lines = finish(proc)
    assert rc == ExitCode.INTERRUPTED, lines
    assert "ckviz: interrupted; partial results written" in lines
    assert 1 <= runs_in(partial(out)) < 48
    assert_nothing_left(env)


@pytest.mark.slow
def test_sighup_to_the_group_on_someone_elses_server_sweeps_and_keeps_the_results(
    tmp_path: Path,
) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with own_redis() as server:
        client = server.client()
        client.set("theirs", "1")
        args = (*MATRIX, "--redis-url", server.url, "--out", str(out), "--jobs", "2")
        with group(*args, env=env) as proc:
            wait_for_line(proc, "/48] ")
            os.killpg(proc.pid, signal.SIGHUP)
            rc, lines = finish(proc)
        assert rc == ExitCode.INTERRUPTED, lines
        assert client.keys("*") == ["theirs"]
    assert 1 <= runs_in(partial(out)) < 48
    assert_nothing_left(env)


@pytest.mark.slow
def test_the_same_request_repeated_within_two_seconds_is_absorbed(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with group(*MATRIX, "--out", str(out), "--jobs", "1", env=env) as proc:
        wait_for_line(proc, "/48] ")
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            os.killpg(proc.pid, signum)  # eight deliveries within half a second
            time.sleep(0.1)
        rc, lines = finish(proc)
    assert rc == ExitCode.INTERRUPTED, lines
    assert 1 <= runs_in(partial(out)) < 48
    assert_nothing_left(env)


@pytest.mark.parametrize("jobs", ["2", "4"])  # 4: two cells per worker process here
@pytest.mark.slow
def test_asking_again_later_gives_up_on_the_cells_in_flight_and_says_so(
    tmp_path: Path, jobs: str
) -> None:
    # ck_many_keys' cells take seconds each: both workers are mid-cell when asked twice
    out, env = tmp_path / "r.json", ckviz_env()
    args = ("--headless", "--scenario", "ck_many_keys", "--discipline", "baseline", "--jobs", jobs)
    with group(*args, "--out", str(out), env=env) as proc:
        workers = wait_until(lambda: _at_least(2, _workers(proc.pid)), "two worker processes")
        wait_until(
            lambda: all(connections_of(w) >= 1 for w in workers), "a cell in flight in each worker"
        )
        os.killpg(proc.pid, signal.SIGINT)  # first request: the cells in flight may finish
        # the same request within 2 s is absorbed (uv run's forwarded copy): ask again after
        time.sleep(2.5)
        os.kill(_ckviz(proc.pid), signal.SIGINT)  # asked again: stop waiting
        rc, lines = finish(proc)
    assert rc == ExitCode.INTERRUPTED, lines
    (gave_up,) = [line for line in lines if "interrupted again" in line]
    assert "cell(s) in flight, whose runs are not in the results" in gave_up
    assert "partial results written" in gave_up
    partial(out)
    assert_nothing_left(env)


def _at_least(count: int, found: set[int]) -> set[int] | None:
    return found if len(found) >= count else None


def _ckviz(wrapper: int) -> int:
    (pid,) = children_of(wrapper)
    return pid


def _workers(wrapper: int) -> set[int]:
    kids = children_of(wrapper)
    return {w for k in kids for w in children_of(k) if "redis" not in _comm(w)}


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text()
    except OSError:
        return ""


def _controlling_tty() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.mark.slow
def test_a_closed_terminal_keeps_the_results_and_prints_no_traceback(tmp_path: Path) -> None:
    """The terminal goes away (tmux kill-session, a dropped SSH session): the kernel sends
    SIGHUP and every later write to it fails with EIO. stderr is a pipe here, to read it."""
    out, env = tmp_path / "r.json", ckviz_env()
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        ckviz_command(*MATRIX, "--out", str(out), "--jobs", "1"),
        stdin=slave, stdout=slave, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=_controlling_tty,
    )  # fmt: skip
    os.close(slave)
    with group_ended(proc):  # its own session (setsid): the group killed if the test fails
        wait_for_line(proc, "/48] ")
        while select.select([master], [], [], 0)[0]:
            os.read(master, 65536)
        os.close(master)  # hang up
        rc, lines = finish(proc)
    assert rc == ExitCode.INTERRUPTED, lines
    assert "ckviz: interrupted; partial results written" in lines
    assert 1 <= runs_in(partial(out)) < 48
    assert_nothing_left(env)


@pytest.mark.slow
def test_a_pipe_closed_by_its_reader_keeps_the_results_and_says_so(tmp_path: Path) -> None:
    """`ckviz --headless 2>&1 | head -2`: the reader quits after two lines."""
    out, env = tmp_path / "r.json", ckviz_env()
    proc = subprocess.Popen(
        ckviz_command(*EIGHT_CELLS, "--out", str(out)),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.readline()
    proc.stdout.close()
    rc = proc.wait(timeout=120)
    assert rc == ExitCode.OUTPUT_CLOSED == 141
    assert json.loads(out.read_text())["complete"] is True
    assert_nothing_left(env)


@pytest.mark.slow
def test_a_closed_stdout_is_no_traceback_and_stderr_still_speaks(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read the tables
    proc = subprocess.run(
        ckviz_command(*ONE_CELL, "--out", str(out)),
        stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, timeout=120,
    )  # fmt: skip
    os.close(write_end)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == ExitCode.OUTPUT_CLOSED, proc.stderr
    assert f"results: {out}" in proc.stderr.splitlines()
    assert json.loads(out.read_text())["complete"] is True
    assert_nothing_left(env)
