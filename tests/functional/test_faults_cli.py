"""Faults as a user meets them: `ckviz --headless` in a subprocess while the server dies,
restarts, stalls, or the user presses Ctrl-C. Results are written (marked incomplete), the
exit code says why, one error line, and no process is left behind."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from ckviz.errors import ExitCode
from tests.functional.trust_support import (
    MARK,
    children_of,
    ckviz_command,
    ckviz_env,
    embedded_redis_pids,
    finish,
    marked_processes,
    own_redis,
    popen_ckviz,
    resumed_after,
    run_ckviz,
    wait_for_line,
    wait_gone,
)

pytestmark = pytest.mark.slow

MATRIX = (
    "--headless",
    "--scenario",
    "ck_skew",
    "--scenario",
    "ck_trickle",
)  # 48 cells (8 disciplines)


# CKVIZ_REDIS_TIMEOUT for the stalled-server tests: a stall costs a chain of such timeouts (the
# cells in flight, then the sweep's delete and its count), each holding a test worker idle;
# half a second is still far above a reply's few milliseconds on a loaded machine
STALL_TIMEOUT = "0.5"


def partial(out: Path) -> dict:
    results = json.loads(out.read_text())
    assert results["complete"] is False
    return results


def runs_in(results: dict) -> int:
    return sum(len(s["runs"]) for s in results["scenarios"])


def assert_nothing_left(env: dict[str, str]) -> None:
    """No process of the run is left: workers carry the env marker; redis-server rewrites
    its environment, but its socket path names the run's private TMPDIR."""
    left = wait_gone(marked_processes(env[MARK]) + list(embedded_redis_pids(env)))
    for pid in left:  # reported below, and not left running for the next test to trip on
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(env["TMPDIR"], ignore_errors=True)
    assert left == set()


def error_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("ckviz: error")]


@pytest.mark.parametrize("jobs", ["1", "2", "6"])  # 6: three cells per worker process here
def test_server_killed_mid_matrix(tmp_path: Path, jobs: str) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with own_redis() as server:
        args = (*MATRIX, "--redis-url", server.url, "--out", str(out), "--jobs", jobs)
        with popen_ckviz(*args, env=env) as proc:
            wait_for_line(proc, "/48] ")
            server.kill()
            rc, lines = finish(proc)
    assert rc == ExitCode.REDIS, lines
    (error,) = error_lines(lines)
    assert "Redis" in error and ("lost the Redis server" in error or "cannot connect" in error)
    results = partial(out)
    assert results["error"] in error
    assert 1 <= runs_in(results) < 48
    assert_nothing_left(env)


def test_embedded_server_killed_mid_matrix(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with popen_ckviz(*MATRIX, "--out", str(out), "--jobs", "1", env=env) as proc:
        wait_for_line(proc, "/48] ")
        (server_pid,) = children_of(proc.pid) & embedded_redis_pids(env)
        os.kill(server_pid, signal.SIGKILL)  # the server this ckviz started, by its pid
        rc, lines = finish(proc)
    assert rc == ExitCode.REDIS, lines
    assert len(error_lines(lines)) == 1
    assert runs_in(partial(out)) >= 1
    assert_nothing_left(env)


def test_server_restarted_mid_matrix(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with own_redis() as server:
        args = (*MATRIX, "--redis-url", server.url, "--out", str(out), "--jobs", "1")
        with popen_ckviz(*args, env=env) as proc:
            wait_for_line(proc, "/48] ")
            server.restart()  # same socket, empty memory
            rc, lines = finish(proc)
        assert server.client().keys("*") == []  # nothing left on the new server either
    assert rc == ExitCode.REDIS, lines
    assert len(error_lines(lines)) == 1
    assert runs_in(partial(out)) >= 1
    assert_nothing_left(env)


def test_stalled_server_times_out_and_names_what_may_remain(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env(CKVIZ_REDIS_TIMEOUT=STALL_TIMEOUT)
    with own_redis() as server:
        args = (*MATRIX, "--redis-url", server.url, "--out", str(out), "--jobs", "1")
        with popen_ckviz(*args, env=env) as proc:
            wait_for_line(proc, "/48] ")
            server.pause()
            with resumed_after(server, 15):  # a timeout not kept: the server back, the run on
                rc, lines = finish(proc, timeout=60)
        assert rc == ExitCode.REDIS, lines
        (error,) = error_lines(lines)
        assert "timeout" in error.lower() and "may remain on the server" in error
        namespace = error.split("keys under '")[1].split("'")[0]
        assert namespace.startswith("ckviz:")
        client = server.client()
        left = [str(k) for k in client.keys("*")]
        assert all(k.startswith(namespace) for k in left)  # nothing outside it
    assert runs_in(partial(out)) >= 1
    assert_nothing_left(env)


@pytest.mark.parametrize(
    ("jobs", "signum"),
    [
        ("1", signal.SIGINT),
        ("2", signal.SIGINT),
        ("6", signal.SIGINT),
        ("1", signal.SIGTERM),
        ("1", signal.SIGHUP),
        ("2", signal.SIGHUP),
    ],
)
def test_interrupt_writes_partial_results_and_exits_130(
    tmp_path: Path, jobs: str, signum: signal.Signals
) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with popen_ckviz(*MATRIX, "--out", str(out), "--jobs", jobs, env=env) as proc:
        wait_for_line(proc, "/48] ")
        proc.send_signal(signum)
        rc, lines = finish(proc)
    assert rc == ExitCode.INTERRUPTED, lines
    assert any("interrupted; partial results written" in line for line in lines)
    assert not any("Traceback" in line for line in lines)
    results = partial(out)
    assert results["error"] == "interrupted (Ctrl-C)"
    assert 1 <= runs_in(results) < 48
    assert_nothing_left(env)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP])
def test_interrupt_on_someone_elses_server_sweeps_our_keys(
    tmp_path: Path, signum: signal.Signals
) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with own_redis() as server:
        client = server.client()
        client.set("theirs", "1")
        args = (*MATRIX, "--redis-url", server.url, "--out", str(out), "--jobs", "2")
        with popen_ckviz(*args, env=env) as proc:
            wait_for_line(proc, "/48] ")
            proc.send_signal(signum)
            rc, _ = finish(proc)
        assert rc == ExitCode.INTERRUPTED
        assert client.keys("*") == ["theirs"]
    assert_nothing_left(env)


def test_an_invariant_violation_writes_partial_results_and_exits_1(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with own_redis() as server:
        client = server.client()
        stop = threading.Event()

        def raise_env_limits() -> None:
            # Every cell sets its env limit key when it opens; raising it behind the driver's
            # back lets the Lua admit more runs than the scenario allows.
            while not stop.is_set():
                for name in client.scan_iter(match="ckviz:*:env:e-ck:concurrency", count=1000):
                    client.set(name, 40, xx=True)  # never recreate a key ckviz swept
                stop.wait(0.001)

        tamper = threading.Thread(target=raise_env_limits, daemon=True)
        args = (
            "--headless",
            "--scenario",
            "ck_skew",
            "--discipline",
            "sfq",
            "--seeds",
            "seed-a,seed-b",
            "--redis-url",
            server.url,
            "--out",
            str(out),
            "--jobs",
            "1",
        )
        tamper.start()
        try:
            proc = run_ckviz(*args, env=env)
        finally:
            stop.set()
            tamper.join()
        assert client.keys("ckviz:*") == []  # every cell cleaned up after itself
    assert proc.returncode == ExitCode.CHECK_FAILED, proc.stderr
    (error,) = error_lines(proc.stderr.splitlines())
    assert "invariant env-limit broken at t=" in error
    results = partial(out)
    assert "invariant env-limit" in results["error"]
    assert_nothing_left(env)


def test_no_redis_server_outlives_a_normal_run(tmp_path: Path) -> None:
    env = ckviz_env()
    args = ("--headless", "--scenario", "ck_skew", "--discipline", "sfq", "--seeds", "seed-a")
    with popen_ckviz(*args, "--out", str(tmp_path / "r.json"), env=env) as proc:
        seen: set[int] = set()
        while proc.poll() is None:
            seen |= embedded_redis_pids(env)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.01)  # its end, or the next look
        assert proc.returncode == 0
    assert len(seen) == 1  # ckviz started exactly one server...
    assert wait_gone(seen, timeout=2) == set()  # ...and it is gone when ckviz returns
    assert_nothing_left(env)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_even_kill_9_leaves_no_process_behind(tmp_path: Path, jobs: str) -> None:
    env = ckviz_env()
    with popen_ckviz(*MATRIX, "--out", str(tmp_path / "r.json"), "--jobs", jobs, env=env) as proc:
        wait_for_line(proc, "/48] ")
        server = children_of(proc.pid) & embedded_redis_pids(env)
        assert len(server) == 1
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert wait_gone(server) == set()  # the server and the workers die with their parent
    assert_nothing_left(env)


def test_a_killed_worker_is_reported_not_a_traceback(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with popen_ckviz(*MATRIX, "--out", str(out), "--jobs", "2", env=env) as proc:
        wait_for_line(proc, "/48] ")
        # the Python children (forked workers share the parent's command line), not the server
        workers = [
            pid
            for pid in children_of(proc.pid)
            if b"redis-server" not in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)  # as the OOM killer would
        rc, lines = finish(proc)
    assert rc == ExitCode.CHECK_FAILED, lines
    assert not any("Traceback" in line for line in lines)
    (error,) = error_lines(lines)
    assert "worker process died" in error
    assert runs_in(partial(out)) >= 1
    assert_nothing_left(env)


def test_no_cell_starts_after_the_server_is_lost(tmp_path: Path) -> None:
    out, env = tmp_path / "r.json", ckviz_env(CKVIZ_REDIS_TIMEOUT=STALL_TIMEOUT)
    with own_redis() as server:
        args = (*MATRIX, "--redis-url", server.url, "--out", str(out), "--jobs", "3")
        with popen_ckviz(*args, env=env) as proc:
            before = wait_for_line(proc, "/48] ")
            server.pause()
            try:
                rc, lines = finish(proc, timeout=60)
            finally:
                server.resume()
    assert rc == ExitCode.REDIS, lines
    failed = [line for line in before + lines if line.startswith("[") and "Redis" in line]
    # only the cells in flight when the server stalled fail: at most one per worker
    assert 1 <= len(failed) <= 3, failed
    assert runs_in(partial(out)) >= 1
    assert_nothing_left(env)


def test_the_next_start_removes_a_killed_runs_temp_folder(tmp_path: Path) -> None:
    env = ckviz_env()
    with popen_ckviz(*MATRIX, "--out", str(tmp_path / "r.json"), "--jobs", "1", env=env) as proc:
        wait_for_line(proc, "/48] ")
        server = children_of(proc.pid) & embedded_redis_pids(env)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert wait_gone(server) == set()
    stale = list(Path(env["TMPDIR"]).glob("ckviz-redis-*"))
    assert len(stale) == 1  # kill -9: ckviz could not remove it itself
    (stale[0].parent / "ckviz-redis-not-ours").mkdir()  # no owners file: left alone
    args = ("--headless", "--scenario", "ck_trickle", "--discipline", "sfq", "--seeds", "seed-a")
    proc2 = subprocess.run(
        ckviz_command(*args, "--out", str(tmp_path / "r2.json")),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc2.returncode == 0, proc2.stderr
    left = sorted(p.name for p in Path(env["TMPDIR"]).glob("ckviz-redis-*"))
    assert left == ["ckviz-redis-not-ours"]
    assert_nothing_left(env)
