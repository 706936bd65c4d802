"""`--jobs N` runs N cells at once in threads of one worker process per core: cells that share
a process give the results they give one at a time, and a worker killed (kill -9, the OOM
killer) is reported once for each of its cells in flight."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from ckviz.errors import ExitCode
from ckviz.headless.workers import threads_per_worker
from tests.functional.cli_support import ckviz, without_timing
from tests.functional.test_faults_cli import assert_nothing_left, error_lines, partial, runs_in
from tests.functional.trust_support import children_of, ckviz_env, finish, popen_ckviz

CORES = os.cpu_count() or 1


def test_threads_per_worker_spread_the_cells_in_flight_over_one_process_per_core() -> None:
    assert threads_per_worker(6, 72, cores=2) == [3, 3]
    assert threads_per_worker(5, 72, cores=2) == [3, 2]
    assert threads_per_worker(2, 72, cores=2) == [1, 1]  # as one cell per process did
    assert threads_per_worker(3, 72, cores=8) == [1, 1, 1]  # never more processes than cells
    assert threads_per_worker(16, 3, cores=2) == [2, 1]  # nor cells in flight than cells


def test_cells_sharing_a_process_give_the_results_of_one_cell_at_a_time(tmp_path: Path) -> None:
    jobs = 3 * CORES  # three threads in each worker process
    assert max(threads_per_worker(jobs, 24)) == 3
    outs = []
    for flag in ("1", str(jobs)):
        out = tmp_path / f"r{flag}.json"
        args = ("--headless", "--scenario", "ck_skew", "--scenario", "ck_trickle")
        proc = ckviz(*args, "--seeds", "seed-b", "--jobs", flag, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        outs.append(without_timing(json.loads(out.read_text())))
    assert outs[0] == outs[1]


def test_a_killed_worker_reports_each_of_its_cells_in_flight(tmp_path: Path) -> None:
    # ck_many_keys' cells take seconds each: every thread is mid-cell when the worker is killed
    out, env = tmp_path / "r.json", ckviz_env()
    jobs = 2 * CORES
    shape = threads_per_worker(jobs, 6)
    args = ("--headless", "--scenario", "ck_many_keys", "--discipline", "baseline")
    args += ("--discipline", "vtime", "--jobs", str(jobs), "--out", str(out))
    with popen_ckviz(*args, env=env) as proc:
        workers = _workers(proc.pid, shape)
        time.sleep(1.0)
        victim = workers[0]
        in_flight = _threads(victim) - 1  # its cell threads, each running a cell
        os.kill(victim, signal.SIGKILL)  # as the OOM killer would
        rc, lines = finish(proc, timeout=300)
    assert rc == ExitCode.CHECK_FAILED, lines
    assert not any("Traceback" in line for line in lines)
    cells = [line for line in lines if line.startswith("[")]  # each cell's progress line
    died = [line for line in cells if "its worker process died (killed by SIGKILL)" in line]
    assert len(died) == in_flight, lines
    (error,) = error_lines(lines)
    assert f"(and {len(died) - 1} more failed cells)" in error
    # no cell started after the death: the other workers' cells in flight finished, no more
    assert runs_in(partial(out)) == jobs - len(died)
    assert_nothing_left(env)


def _workers(ckviz_pid: int, shape: list[int]) -> list[int]:
    """The worker processes (forked copies of ckviz: its command line, not the server's), once
    each has started its cell threads (besides its main thread) as `shape` says."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = [
            pid
            for pid in children_of(ckviz_pid)
            if b"redis-server" not in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        if sorted(_threads(w) - 1 for w in found) == sorted(shape):
            return sorted(found)
        time.sleep(0.1)
    raise AssertionError(f"expected worker processes of {shape} cell threads")


def _threads(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))
