"""`--jobs N` runs N cells at once, spread over one worker process per core, where they take
turns in one thread (store/turns.py): cells that share a process give the results they give
one at a time, and a worker killed (kill -9, the OOM killer) is reported once for each of its
cells in flight."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from ckviz.errors import ExitCode
from ckviz.headless.workers import cells_per_worker
from tests.functional.cli_support import ckviz, without_timing
from tests.functional.test_faults_cli import assert_nothing_left, error_lines, partial, runs_in
from tests.functional.trust_support import (
    children_of,
    ckviz_env,
    connections_of,
    finish,
    popen_ckviz,
)
from tests.waiting import wait_until

CORES = os.cpu_count() or 1
MANY_KEYS = """
description = "ck_many_keys at a fifth of its size: one heavy backlog, 1,000 light keys."
env_limit = 4
light_key = "light-0"

[[keys]]
name = "heavy"
runs = 2000
arrival = "immediate"
hold_ms_mean = 25

[[keys]]
name = "light"
count = 1000
runs = 2
arrival = "poisson"
rate_per_sec = 10
hold_ms_mean = 25
"""


def test_the_cells_in_flight_are_spread_over_one_process_per_core() -> None:
    assert cells_per_worker(6, 72, cores=2) == [3, 3]
    assert cells_per_worker(5, 72, cores=2) == [3, 2]
    assert cells_per_worker(2, 72, cores=2) == [1, 1]  # as one cell per process did
    assert cells_per_worker(3, 72, cores=8) == [1, 1, 1]  # never more processes than cells
    assert cells_per_worker(16, 3, cores=2) == [2, 1]  # nor cells in flight than cells


@pytest.mark.slow
def test_cells_sharing_a_process_give_the_results_of_one_cell_at_a_time(tmp_path: Path) -> None:
    jobs = 3 * CORES  # three cells taking turns in each worker process
    assert max(cells_per_worker(jobs, 24)) == 3
    outs = []
    for flag in ("1", str(jobs)):
        out = tmp_path / f"r{flag}.json"
        args = ("--headless", "--scenario", "ck_skew", "--scenario", "ck_trickle")
        proc = ckviz(*args, "--seeds", "seed-b", "--jobs", flag, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        outs.append(without_timing(json.loads(out.read_text())))
    assert outs[0] == outs[1]


@pytest.mark.slow
def test_a_killed_worker_reports_each_of_its_cells_in_flight(tmp_path: Path) -> None:
    # a cell of 4,000 runs over 1,001 keys takes seconds: every cell in flight is mid-way when
    # its worker is killed; the other workers' cells in flight, which must finish, cost a fifth
    # of ck_many_keys' (22,000 runs over 10,001 keys: ~10 s of CPU a vtime cell, this ~2 s)
    scenario = tmp_path / "many_keys.toml"
    scenario.write_text(MANY_KEYS)
    out, env = tmp_path / "r.json", ckviz_env()
    jobs = 2 * CORES
    shape = cells_per_worker(jobs, 6)
    args = ("--headless", "--scenario", str(scenario), "--discipline", "baseline")
    args += ("--discipline", "vtime", "--jobs", str(jobs), "--out", str(out))
    with popen_ckviz(*args, env=env) as proc:
        workers = _workers(proc.pid, len(shape))  # forked in the order of `shape`
        victim, in_flight = workers[0], shape[0]
        # every place of every worker is handed a cell at once, each on a connection of its own
        wait_until(lambda: connections_of(victim) >= in_flight, "the victim's cells running")
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


def _workers(ckviz_pid: int, count: int) -> list[int]:
    """The `count` worker processes (forked copies of ckviz: its command line, not the
    server's), in the order they were started."""

    def workers() -> list[int] | None:
        found = [
            pid
            for pid in children_of(ckviz_pid)
            if b"redis-server" not in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        return found if len(found) == count else None

    found = wait_until(workers, f"{count} worker processes")
    return sorted(found, key=lambda pid: (_started(pid), pid))


def _started(pid: int) -> int:
    """When `pid` started, in clock ticks since boot (/proc/PID/stat's 22nd field)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
