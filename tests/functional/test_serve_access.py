"""Who may drive `ckviz serve` (issue 35 items 1, 5, 9): a real serve process and a real
websocket client. Only the page's own origin, the address served and the token in the URL
serve prints open a session; sessions are capped; odd frames and a client that drops are no
traceback; a stop signal exits 130."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest

from tests.functional.test_faults_cli import assert_nothing_left
from tests.functional.test_serve import DEADLINE_S, SERVE, URL_LINE, free_port, poll, read_url
from tests.functional.trust_support import ckviz_command, ckviz_env, finish


class Served:
    def __init__(self, proc: subprocess.Popen[str], url: str, port: int) -> None:
        self.proc, self.url, self.port = proc, url, port
        found = re.search(r"[?&]token=([^&\s]+)", url)
        self.token = found.group(1) if found else ""

    def ws(self, token: str | None = None, size: str = "width=100&height=30") -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{self.token if token is None else token}?{size}"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def served(
    *args: str, env: dict[str, str] | None = None, base: tuple[str, ...] = SERVE
) -> Iterator[Served]:
    env = env or ckviz_env()
    port = free_port()
    proc = subprocess.Popen(
        ckviz_command(*base, "--port", str(port), *args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        yield Served(proc, read_url(proc), port)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()


async def draws(url: str, origin: str, **headers: str) -> bool:
    """True when a session opens on `url` and the app draws; False when it is refused."""
    async with aiohttp.ClientSession() as http:
        try:
            ws = await http.ws_connect(url, origin=origin, headers=headers or None)
        except aiohttp.WSServerHandshakeError:
            return False
        async with ws:
            drawn = b""
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    drawn += message.data
                if b"micro_skew" in drawn:
                    return True
            raise AssertionError(f"the session closed before the app drew: {drawn[-300:]!r}")


def session(url: str, origin: str, **headers: str) -> bool:
    return asyncio.run(asyncio.wait_for(draws(url, origin, **headers), DEADLINE_S))


def page_status(url: str, host: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def stop(proc: subprocess.Popen[str], sig: signal.Signals = signal.SIGTERM) -> list[str]:
    proc.send_signal(sig)
    rc, lines = finish(proc, timeout=DEADLINE_S)
    assert rc == 130, lines
    return lines


@pytest.mark.slow
def test_only_the_token_the_origin_and_the_host_served_open_a_session() -> None:
    env = ckviz_env()
    with served(env=env) as s:
        assert s.url.startswith(f"http://127.0.0.1:{s.port}/?token=") and len(s.token) >= 32
        assert page_status(s.url) == 200
        assert page_status(f"http://127.0.0.1:{s.port}/") == 403  # no token
        assert page_status(f"http://127.0.0.1:{s.port}/?token=x{s.token}") == 403
        assert page_status(s.url, host=f"evil.example:{s.port}") == 403  # DNS rebinding
        with urllib.request.urlopen(s.url, timeout=5) as reply:
            assert f"ws://127.0.0.1:{s.port}/ws/{s.token}" in reply.read().decode()
        assert not session(s.ws(), "http://evil.example")  # a foreign page
        assert not session(s.ws(), f"http://localhost:{s.port + 1}")
        assert not session(s.ws(), s.origin, Host=f"evil.example:{s.port}")
        assert not session(s.ws(token=""), s.origin)  # no token
        wrong = s.token[:-1] + ("B" if s.token.endswith("A") else "A")  # one character off
        assert not session(s.ws(token=wrong), s.origin)  # a wrong one
        assert not session(f"ws://127.0.0.1:{s.port}/ws?width=80&height=24", s.origin)
        assert session(s.ws(), s.origin)  # the page's own socket, with the token
        lines = stop(s.proc)
    assert sum("refused" in line for line in lines) >= 5, lines
    assert_nothing_left(env)


@pytest.mark.slow
def test_sessions_are_capped() -> None:
    async def two_at_once(s: Served) -> tuple[bool, bool]:
        async with aiohttp.ClientSession() as http, http.ws_connect(s.ws(), origin=s.origin):
            second = await draws(s.ws(), s.origin)
        return True, second

    with served("--max-sessions", "1") as s:
        first, second = asyncio.run(asyncio.wait_for(two_at_once(s), DEADLINE_S))
        assert first and not second
        assert session(s.ws(), s.origin)  # the first one gone, a place is free again
        lines = stop(s.proc, signal.SIGHUP)
    assert any("--max-sessions 1" in line for line in lines), lines


@pytest.mark.slow
def test_odd_frames_and_a_client_that_drops_are_no_traceback() -> None:
    async def odd_frames(s: Served) -> bool:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(s.ws(size="width=3000&height=3000"), origin=s.origin):
                pass  # dropped at once, the app still starting
            async with http.ws_connect(s.ws(), origin=s.origin) as ws:
                for frame in ("not json", "[", '{"a": 1}', '["stdin", 5]', '["resize", "x"]'):
                    await ws.send_str(frame)
                await ws.send_bytes(b"\xff\x00")
                await ws.send_str('["resize", {"width": 1e9, "height": -4}]')
            return await draws(s.ws(), s.origin)  # the server still serves

    with served() as s:
        assert asyncio.run(asyncio.wait_for(odd_frames(s), DEADLINE_S))
        lines = stop(s.proc, signal.SIGINT)
    assert not any("Error handling request" in line for line in lines), lines


@pytest.mark.slow
def test_the_url_line_reaches_a_file_at_once_and_names_the_font_size(tmp_path: Path) -> None:
    out, port = tmp_path / "serve.out", free_port()
    with out.open("w") as stdout:
        proc = subprocess.Popen(
            ckviz_command(*SERVE, "--port", str(port), "--font-size", "28"),
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env=ckviz_env(),
        )
        try:
            url = poll(lambda: URL_LINE.search(out.read_text()), "the URL line in the file")
            with urllib.request.urlopen(url.group(1), timeout=5) as reply:
                page = reply.read().decode()
            assert 'data-font-size="28"' in page
            assert '<meta name="referrer" content="no-referrer"' in page  # the token stays here
            assert "starting" in page  # shown at once, until the app's first frame
            stop(proc)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.mark.slow
def test_every_address_warns_and_the_page_uses_the_address_the_browser_used() -> None:
    with served("--host", "0.0.0.0") as s:
        with urllib.request.urlopen(s.url, timeout=5) as reply:
            page = reply.read().decode()
        assert "0.0.0.0" not in page and f"ws://127.0.0.1:{s.port}/ws/" in page
        assert page_status(s.url, host=f"localhost:{s.port}") == 200
        assert page_status(s.url, host=f"evil.example:{s.port}") == 403
        lines = stop(s.proc)
    assert any("warning" in line and "0.0.0.0" in line for line in lines), lines


@pytest.mark.slow
def test_a_mix_the_app_takes_is_served_and_the_flag_given_is_named() -> None:
    mix = ("--consumers", "vtime:1,vtime-v17:1")
    with served(*mix, "--redis-url", "redis://127.0.0.1:1", base=("serve", "micro_skew")) as s:

        async def open_until_the_app_says_why() -> str:
            async with (
                aiohttp.ClientSession() as http,
                http.ws_connect(s.ws(), origin=s.origin),
            ):  # the app cannot connect; its error line comes out on serve's stdout
                return await asyncio.to_thread(read_line, s.proc, "Redis")

        said = asyncio.run(asyncio.wait_for(open_until_the_app_says_why(), DEADLINE_S))
        stop(s.proc)
    assert "--redis-url" in said and "CKVIZ_REDIS_URL" not in said, said


def read_line(proc: subprocess.Popen[str], needle: str) -> str:
    assert proc.stdout is not None
    for line in proc.stdout:
        if needle in line:
            return line
    raise AssertionError(f"serve's stdout ended without {needle!r}")


@pytest.mark.parametrize("mix", ["vtime:1,vtime-v17:1"])
def test_serve_parses_consumers_as_the_app_does(mix: str) -> None:
    from ckviz.commands.serve import app_command, build_parser, served_choice

    ns = build_parser().parse_args(["micro_skew", "--consumers", mix])
    line = app_command(ns, *served_choice(ns))
    assert f"--consumers {mix}" in line and "--discipline" not in line
