"""`ckviz serve`: the app in a real headless Chromium (the page loads, the app draws, a key
steps it), each browser's app on its own embedded Redis, and a stop (SIGTERM, SIGINT) that
leaves no process, no server and no key behind."""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

import aiohttp
import pytest

from ckviz.commands.serve import app_command, build_parser
from tests.functional.browser_support import Browser
from tests.functional.test_faults_cli import assert_nothing_left
from tests.functional.trust_support import (
    ckviz_command,
    ckviz_env,
    embedded_redis_pids,
    finish,
    own_redis,
    popen_ckviz,
    process_group,
    run_ckviz,
)
from tests.report.test_report_cli import browser_or_skip
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

SERVE = ("serve", "micro_skew", "--discipline", "vtime")
T = TypeVar("T")
URL_LINE = re.compile(r"open (http://\S+) in a browser")  # token and all
DEADLINE_S = 20.0  # generous under load; each wait returns as soon as its condition holds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def poll(probe: Callable[[], T | None], what: str, timeout: float = DEADLINE_S) -> T:
    """The first truthy value `probe` gives, asked until the deadline."""
    return wait_until(probe, what, timeout)  # type: ignore[arg-type]


def read_url(proc: subprocess.Popen[str]) -> str:
    """The URL line serve prints on stdout, read as soon as it comes."""
    assert proc.stdout is not None
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            found = URL_LINE.search(line)
            if found:
                return found.group(1)
            assert line, f"serve ended without its URL line: {proc.stderr and proc.stderr.read()}"
    raise AssertionError("serve printed no URL line")


def page_up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def runs_out(screen: str) -> int | None:
    """The status line's count of runs dequeued so far ('N/160 runs out')."""
    found = re.search(r"micro_skew · vtime .*?(\d+)/160 runs out", screen)
    return int(found.group(1)) if found else None


def test_the_app_in_a_headless_browser_draws_steps_and_leaves_nothing(tmp_path: Path) -> None:
    browser_path = browser_or_skip()
    env, port = ckviz_env(), free_port()
    with popen_ckviz(*SERVE, "--port", str(port), env=env) as proc:
        url = read_url(proc)  # with the run's token
        poll(lambda: page_up(url), "the server answers")
        browser = Browser(browser_path, tmp_path / "profile", 1280, 800)
        try:
            browser.open(url)
            before = poll(lambda: runs_out(browser.screen()) == 0, "the app draws in the page")
            assert before and embedded_redis_pids(env), "the app runs on an embedded server"
            browser.press(" ")
            poll(lambda: runs_out(browser.screen()) == 1, "space steps the app: 1 run out")
            proc.send_signal(signal.SIGTERM)
            rc, lines = finish(proc, timeout=DEADLINE_S)
        finally:
            browser.close()
    assert rc == 130, lines  # interrupted, as every command stopped by a signal
    assert_nothing_left(env)


async def one_session(url: str, then: Callable[[], None]) -> bytes:
    """A browser's websocket without the browser: the app draws, space steps it, `then()`
    runs (it stops the server), and the session is read until the server closes it."""
    drawn = b""
    origin = re.sub(r"^ws://([^/]+)/.*", r"http://\1", url)  # the page's own origin
    async with aiohttp.ClientSession() as http, http.ws_connect(url, origin=origin) as ws:
        async for message in ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                drawn += message.data
            if b"micro_skew" in drawn:
                break
        await ws.send_json(["stdin", " "])
        await asyncio.to_thread(then)
        async for message in ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                drawn += message.data
    return drawn


def group(*args: str, env: dict[str, str]) -> AbstractContextManager[subprocess.Popen[str]]:
    """`ckviz` in a process group of its own, as a terminal runs it (ctrl+c signals the
    whole group: the server and every app process)."""
    return process_group(ckviz_command(*args), env, stdout=subprocess.PIPE)


def test_ctrl_c_quits_every_app_which_deletes_its_keys_on_a_given_server() -> None:
    env, port = ckviz_env(), free_port()
    with own_redis() as server:
        args = (*SERVE, "--port", str(port), "--redis-url", server.url)
        with group(*args, env=env) as proc:
            token = read_url(proc).partition("token=")[2]
            poll(lambda: page_up(f"http://127.0.0.1:{port}/?token={token}"), "the server answers")
            client = server.client()

            def stop_once_keys_are_written() -> None:
                poll(lambda: client.keys("ckviz:*"), "the app's keys on the server")
                os.killpg(proc.pid, signal.SIGINT)

            ws_url = f"ws://127.0.0.1:{port}/ws/{token}?width=120&height=40"
            session = one_session(ws_url, stop_once_keys_are_written)
            drawn = asyncio.run(asyncio.wait_for(session, DEADLINE_S))
            rc, lines = finish(proc, timeout=DEADLINE_S)
        assert b"micro_skew" in drawn
        assert rc == 130, lines
        assert client.keys("ckviz:*") == []
    assert_nothing_left(env)


def test_a_killed_serve_leaves_no_app_and_no_server_behind() -> None:
    """serve killed hard (its pid alone: no stop, no signal to its apps): each app quits
    with it, and the app's embedded server with the app. Asserted before the test's own
    plumbing kills what is left of serve's process group on the way out."""
    env, port = ckviz_env(), free_port()
    with popen_ckviz(*SERVE, "--port", str(port), env=env) as proc:
        token = read_url(proc).partition("token=")[2]
        poll(lambda: page_up(f"http://127.0.0.1:{port}/?token={token}"), "the server answers")

        def kill_serve_alone() -> None:
            poll(lambda: embedded_redis_pids(env), "the app's embedded server")
            proc.send_signal(signal.SIGKILL)
            proc.wait()

        ws_url = f"ws://127.0.0.1:{port}/ws/{token}?width=120&height=40"
        asyncio.run(asyncio.wait_for(one_session(ws_url, kill_serve_alone), DEADLINE_S))
        assert_nothing_left(env)


def test_the_app_command_keeps_the_flags_and_keeps_a_password_out_of_its_line() -> None:
    ns = build_parser().parse_args(
        ["micro_skew", "--redis-url", "redis://:secret@127.0.0.1:1", "--consumers", "2"]
    )
    assert (ns.host, build_parser().parse_args([]).port) == ("127.0.0.1", 8000)  # this machine
    line = app_command(ns, "micro_skew", "vtime", "seed-a")
    assert line.startswith("exec ") and "-m ckviz micro_skew --discipline vtime" in line
    assert "--consumers 2" in line and "--prefix ckviz" in line
    assert "secret" not in line and "--redis-url" not in line


def test_bad_serve_flags_are_one_line() -> None:
    for args, says in (
        (("serve", "--port", "0"), "serve: --port: 0 is outside 1..65535"),
        (("serve", "micro_skew", "--discipline", "sfq"), "does not run on the step scenario"),
        (("serve", "no_such_scenario"), "no_such_scenario"),
    ):
        proc = run_ckviz(*args, timeout=30)
        assert proc.returncode == 2 and says in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_serve_refuses_a_port_in_use() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_ckviz(*SERVE, "--port", str(port), timeout=30)
    assert proc.returncode == 2 and f"port {port}" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
