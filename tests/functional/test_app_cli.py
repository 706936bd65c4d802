"""`ckviz` (the terminal app) from the command line: what happens before the app opens."""

from __future__ import annotations

import redis

from ckviz.store.server import RedisServer
from tests.functional.test_headless_cli import ckviz


def test_app_refuses_a_used_prefix_root_before_opening(
    redis_server: RedisServer, client: redis.Redis
) -> None:
    client.set("appguard:someone-else", "theirs")
    try:
        proc = ckviz("--redis-url", redis_server.url, "--prefix", "appguard", timeout=30)
        assert proc.returncode == 2
        (line,) = proc.stderr.strip().splitlines()
        assert "--prefix appguard" in line and "--reuse-prefix" in line
        assert client.get("appguard:someone-else") == "theirs"
    finally:
        client.delete("appguard:someone-else")


def test_app_rejects_bad_choices_with_one_line(redis_server: RedisServer) -> None:
    for args, needle in (
        (["nope"], "unknown scenario 'nope'"),
        (["--discipline", "fifo"], "unknown discipline 'fifo'"),
        (["--discipline", "sfq", "--discipline", "drr"], "the terminal app takes one"),
        (["--prefix", "bad prefix"], "--prefix"),
    ):
        proc = ckviz(*args, "--redis-url", redis_server.url, timeout=30)
        assert proc.returncode == 2, (args, proc.stderr)
        (line,) = proc.stderr.strip().splitlines()
        assert needle in line
