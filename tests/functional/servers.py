"""Tests that also run against Redis 7 (issue 20 item 17): ckviz is developed on the embedded
6.2, people point it at Debian's 7.0. A module opts in with

    from tests.functional.servers import redis_server  # noqa: F401  (both servers)

which runs each of its tests on the session's server and on `redis7_server`. Tests that start
servers of their own take the `redis_binary` fixture (tests/conftest.py), which gives either
binary in turn."""

from __future__ import annotations

import pytest

from ckviz.store.server import RedisServer
from tests.conftest import SERVERS


@pytest.fixture(scope="module", params=SERVERS)
def redis_server(request: pytest.FixtureRequest, redis_server: RedisServer) -> RedisServer:
    """The session's server, then Redis 7 (skipped where it is not installed)."""
    if request.param == "redis-7":
        server: RedisServer = request.getfixturevalue("redis7_server")
        return server
    return redis_server
