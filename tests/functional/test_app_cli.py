"""`ckviz` (the terminal app) from the command line: what happens before the app opens."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest
import redis

from ckviz.errors import ExitCode
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, ckviz_here

pytestmark = pytest.mark.slow


def ckviz_on_a_terminal(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """`ckviz ARGS` with a pseudo-terminal as stdin and stdout (as a person runs the app),
    stderr captured. Only for runs that end before the app would draw."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ckviz", *args],
            stdin=follower,
            stdout=follower,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
    finally:
        os.close(follower)
        os.close(leader)
    return proc


def test_the_app_without_a_terminal_says_so_and_exits_2(
    redis_server: RedisServer, client: redis.Redis
) -> None:
    """A CI job that forgot --headless: one line, exit 2, at once; nothing written."""
    proc = ckviz("--redis-url", redis_server.url, "--prefix", "noterminal", timeout=30)
    assert proc.returncode == ExitCode.USAGE, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line == (
        "ckviz: error: the terminal app needs a terminal (stdin is not one); run ckviz "
        "--headless for the matrix without one"
    )
    assert proc.stdout == ""
    assert client.keys("noterminal:*") == []
    leader, follower = pty.openpty()
    try:  # keys from a terminal, but the drawing piped into a file: no terminal either
        piped = subprocess.run(
            [sys.executable, "-m", "ckviz", "--redis-url", redis_server.url],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert piped.returncode == ExitCode.USAGE and "(stdout is not one)" in piped.stderr


def test_app_refuses_a_used_prefix_root_before_opening(
    redis_server: RedisServer, client: redis.Redis
) -> None:
    client.set("appguard:someone-else", "theirs")
    try:
        proc = ckviz_on_a_terminal("--redis-url", redis_server.url, "--prefix", "appguard")
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
        proc = ckviz_here(*args, "--redis-url", redis_server.url)
        assert proc.returncode == 2, (args, proc.stderr)
        (line,) = proc.stderr.strip().splitlines()
        assert needle in line
