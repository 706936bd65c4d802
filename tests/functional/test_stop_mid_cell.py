"""Ctrl-C in the middle of a long cell: the cell stops where it is and the results hold its
figures so far, the run marked as stopped and the file as incomplete (a day's replay need not
be run to its end, or thrown away)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from ckviz.errors import ExitCode
from tests.functional.test_faults_cli import assert_nothing_left
from tests.functional.trust_support import (
    ckviz_command,
    ckviz_env,
    finish,
    own_redis,
    process_group,
)
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

# cells of 22,000 runs: seconds of work each, stopped well before their end
ONE_LONG_CELL = ("--headless", "--scenario", "ck_many_keys", "--discipline", "baseline")
RUNS = 22_000


@pytest.mark.parametrize("jobs", ["1", "2"])  # in ckviz's process, and in a worker's
def test_ctrl_c_mid_cell_writes_the_run_so_far_marked_stopped(tmp_path: Path, jobs: str) -> None:
    out, env = tmp_path / "r.json", ckviz_env()
    with own_redis() as server:
        client = server.client()
        args = (*ONE_LONG_CELL, "--redis-url", server.url, "--out", str(out), "--jobs", jobs)
        with process_group(ckviz_command(*args), env) as proc:
            # the cell is under way once its light keys' runs are being enqueued
            wait_until(lambda: client.dbsize() > 100, "the cell's keys in Redis")
            os.killpg(proc.pid, signal.SIGINT)
            rc, lines = finish(proc)
        assert rc == ExitCode.INTERRUPTED, lines
        assert client.dbsize() == 0  # the cell's keys swept
    results = json.loads(out.read_text())
    assert results["complete"] is False and results["error"] == "interrupted (Ctrl-C)"
    (scenario,) = results["scenarios"]
    runs = scenario["runs"]  # the cells in flight (one per worker), none of those after
    assert 1 <= len(runs) <= int(jobs)
    for run in runs:
        metrics = run["metrics"]
        assert 0 < metrics["total_dequeued"] < RUNS
        assert metrics["makespan_ms"] <= run["stopped_at"]
        assert sum(metrics["per_key"]["dequeued"]) == metrics["total_dequeued"]
    assert_nothing_left(env)
