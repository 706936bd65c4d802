"""The suite's own servers under parallel workers (pytest-xdist): each worker process starts
its session server itself, a child that dies with it, in a temp folder of its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ckviz.store.server import RedisServer
from ckviz.store.workdirs import OWNERS_FILE


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_the_session_server_is_this_workers_own(redis_server: RedisServer) -> None:
    if redis_server.pid is None:
        pytest.skip("CKVIZ_TEST_REDIS_URL names a server the workers share (by key prefix)")
    assert parent_of(redis_server.pid) == os.getpid()  # started here: it dies with this worker
    socket_path = Path(redis_server.url.removeprefix("unix://"))
    assert socket_path.parent.name.startswith("ckviz-redis-")  # a folder of its own
    owners = (socket_path.parent / OWNERS_FILE).read_text().split()
    assert int(owners[0]) == os.getpid()  # and says so: no other worker's start removes it
