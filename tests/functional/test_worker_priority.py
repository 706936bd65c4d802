"""The workers of `--headless --jobs N` yield the cores to the server ckviz started itself (its
scripts are the matrix's serial part), and only to that one: with a server named by URL they
run at ckviz's own priority. The server shares ckviz's session (where Linux schedules by
session, so that the workers' lower priority counts against it) but not its process group (a
Ctrl-C or a signal to ckviz's group does not reach it)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from ckviz.errors import ExitCode
from ckviz.headless.runner import WORKER_NICE
from ckviz.store.server import RedisServer
from tests.functional.test_faults_cli import MATRIX, assert_nothing_left
from tests.functional.trust_support import (
    children_of,
    ckviz_command,
    ckviz_env,
    embedded_redis_pids,
    finish,
    process_group,
    wait_for_line,
)

pytestmark = pytest.mark.slow

MOST_NICE = 19


def _priority(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def _seen_mid_run(out: Path, env: dict[str, str], *flags: str) -> tuple[int, set[int], set[int]]:
    """ckviz's niceness, its server (if it started one) and its workers, looked at while the
    second cell runs; then ckviz is interrupted (it keeps the results of what it ran)."""
    command = ckviz_command(*MATRIX, "--out", str(out), "--jobs", "2", *flags)
    with process_group(command, env) as proc:
        wait_for_line(proc, "/48] ")
        kids = children_of(proc.pid)
        server = kids & embedded_redis_pids(env)
        seen = (
            _priority(proc.pid),
            {(_priority(p), os.getsid(p), os.getpgid(p)) for p in server},
            {_priority(p) for p in kids - server},
        )
        session, group = os.getsid(proc.pid), os.getpgid(proc.pid)
        os.kill(proc.pid, signal.SIGINT)
        rc, lines = finish(proc)
    assert rc == ExitCode.INTERRUPTED, lines
    ckviz, servers, workers = seen
    for _, server_session, server_group in servers:
        assert server_session == session  # scheduled with ckviz...
        assert server_group != group  # ...but out of reach of a signal to its group
    return ckviz, {s[0] for s in servers}, workers


def test_the_workers_yield_to_the_server_ckviz_started(tmp_path: Path) -> None:
    env = ckviz_env()
    ckviz, server, workers = _seen_mid_run(tmp_path / "r.json", env)
    assert server == {ckviz}  # the server keeps ckviz's priority
    assert workers == {min(ckviz + WORKER_NICE, MOST_NICE)}
    assert_nothing_left(env)


def test_with_a_server_named_by_url_the_workers_keep_ckvizs_priority(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    env = ckviz_env()
    ckviz, server, workers = _seen_mid_run(
        tmp_path / "r.json", env, "--redis-url", redis_server.url
    )
    assert server == set()
    assert workers == {ckviz}
    assert_nothing_left(env)
