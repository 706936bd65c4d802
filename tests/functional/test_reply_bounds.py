"""The reply reader's bounds (issue 20 item 10): CKVIZ_REDIS_TIMEOUT bounds a whole reply,
not one read, from the first contact on; a reply announcing 2^31 elements or a 10^12-byte
string, or a trip reading past MAX_TRIP_BYTES, is one line saying which, never a
MemoryError or a 3 GB read. The servers here are stand-ins speaking raw RESP
(misbehaving_server.py); the run around them is on the real test server. The wire's own bounds
hold alike for a trip alone in its thread and for one taking turns with others in a headless
worker (store/turns.py), whose reads and waits differ."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import redis

from ckviz.errors import ExitCode
from ckviz.store import wire
from ckviz.store.packing import pack
from ckviz.store.server import RedisServer
from ckviz.store.turns import Turns
from ckviz.store.wire import ReplyTooLarge, Wire
from tests.functional.misbehaving_server import (
    fake_server,
    hangs_up_after,
    once,
    proxy,
    silent,
    stream,
    trickle,
)
from tests.functional.trust_support import ckviz_env, run_ckviz, stderr_lines

RUN = ("--headless", "--scenario", "ck_skew", "--seeds", "seed-a", "--discipline", "baseline")
# CKVIZ_REDIS_TIMEOUT for a `ckviz` run: what its error says is the point, not how long it
# waited (each wait holds a test worker idle). Far above a healthy reply even under load; the
# mid-run tests' healthy replies come through a proxy thread of this process: twice that.
BOUND = "0.5"
BOUND_PROXIED = "1"


def wire_to(url: str, timeout: float = 1.0) -> tuple[Wire, redis.connection.Connection]:
    client = redis.Redis.from_url(url, socket_timeout=timeout, protocol=2)
    conn = client.connection_pool.make_connection()
    conn.connect()
    return Wire(conn), conn


def ping(url: str, timeout: float = 1.0, taking_turns: bool = False) -> None:
    """One PING on the wire; the exception it raised is re-raised."""
    w, conn = wire_to(url, timeout)
    try:
        trip(w, conn, taking_turns)
    finally:
        conn.disconnect()


def trip(w: Wire, conn: redis.connection.Connection, taking_turns: bool) -> list[object]:
    """One PING's round trip: alone, or as a task of a hub (a headless worker's cells)."""
    if not taking_turns:
        return w.roundtrip(pack(conn, [("PING",)]), 1)
    hub, got = Turns(), dict[str, object]()

    def task() -> None:
        try:
            got["replies"] = w.roundtrip(pack(conn, [("PING",)]), 1)
        except BaseException as exc:
            got["raised"] = exc

    hub.start(task)
    hub.run()
    if "raised" in got:
        raise got["raised"]  # type: ignore[misc]
    return got["replies"]  # type: ignore[return-value]


TURNS = pytest.mark.parametrize("taking_turns", [False, True], ids=["alone", "taking-turns"])


@TURNS
def test_a_trickled_reply_times_out_as_a_whole(taking_turns: bool) -> None:
    # a timeout per read would never come (a byte every 0.1 s): the hang-up would, at 10 s
    trickled = hangs_up_after(10, trickle(b"$100\r\n", every_s=0.1))
    with fake_server(trickled) as url, pytest.raises(redis.TimeoutError, match=r"within 0\.5 s"):
        ping(url, timeout=0.5, taking_turns=taking_turns)


@TURNS
@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (b"*2147483647\r\n", "an array of 2147483647 elements"),
        (b"$999999999999\r\n", "a string of 999999999999 bytes"),
        (b"*2\r\n$1\r\na\r\n*2147483647\r\n", "an array of 2147483647 elements"),  # nested
    ],
)
def test_an_absurd_length_is_refused_before_it_is_read(
    reply: bytes, said: str, taking_turns: bool
) -> None:
    with fake_server(once(reply)) as url, pytest.raises(ReplyTooLarge, match=said):
        ping(url, taking_turns=taking_turns)


@TURNS
def test_a_header_cut_between_two_reads_is_still_seen(taking_turns: bool) -> None:
    cut = trickle(b"*2\r\n$1\r\na\r\n*21474", every_s=0.01)  # x's follow, not digits:
    with fake_server(cut) as url, pytest.raises(redis.TimeoutError):
        ping(
            url, timeout=0.5, taking_turns=taking_turns
        )  # this one must time out, not be refused ...

    split = _in_reads(b"*2\r\n$1\r\na\r\n*21474", b"83647\r\n")
    with fake_server(split) as url, pytest.raises(ReplyTooLarge, match="2147483647 elements"):
        ping(
            url, taking_turns=taking_turns
        )  # ... and this one refused though its header came in two reads


def _in_reads(*parts: bytes) -> object:
    """Answers the first request in `parts`, a pause between them (so each is a read of its
    own), and then waits."""

    def behave(sock: object) -> None:
        sock.recv(65536)  # type: ignore[attr-defined]
        for part in parts:
            sock.sendall(part)  # type: ignore[attr-defined]
            time.sleep(0.1)
        silent(sock)  # type: ignore[arg-type]

    return behave


ELEMENTS = b"".join(b"$100\r\n" + b"a" * 100 + b"\r\n" for _ in range(40))  # 4 KB read


@TURNS
@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the reader waits at a huge string after 4 KB of the reply it has already read
        (b"*42\r\n" + ELEMENTS, b"$999999999999\r\nabc"),
        # ... with 60 KB of that string's body read in the same go
        (b"*42\r\n" + ELEMENTS, b"$999999999999\r\n" + b"\r\n$1\r\nx" * 6000),
        # ... its header cut between the two reads
        (b"*42\r\n" + ELEMENTS + b"$99999", b"9999999\r\nabc"),
    ],
)
def test_a_huge_string_is_refused_where_the_reader_waits_for_it(
    first: bytes, second: bytes, taking_turns: bool
) -> None:
    with (
        fake_server(_in_reads(first, second)) as url,
        pytest.raises(ReplyTooLarge, match="a string of 999999999999 bytes announced"),
    ):
        ping(url, timeout=5, taking_turns=taking_turns)


@TURNS
def test_long_strings_the_reader_waits_for_are_read_whole(taking_turns: bool) -> None:
    """Legitimate strings the reader waits for across reads are not refused: only a header
    announcing 10^8 bytes is."""
    long, longer = b"b" * 70_000, b"c" * 123_456
    first = b"*3\r\n$70000\r\n" + long[:30_000]
    second = long[30_000:] + b"\r\n$123456\r\n" + longer[:100]  # 6 digits: not huge
    third = longer[100:] + b"\r\n$3\r\nend\r\n"
    with fake_server(_in_reads(first, second, third)) as url:
        w, conn = wire_to(url, timeout=5)
        try:
            (reply,) = trip(w, conn, taking_turns)
        finally:
            conn.disconnect()
    assert reply == [long, longer, b"end"]


@TURNS
def test_a_reply_without_end_stops_at_the_size_bound(
    monkeypatch: pytest.MonkeyPatch, taking_turns: bool
) -> None:
    monkeypatch.setattr(wire, "MAX_TRIP_BYTES", 8 * 2**20)  # the bound is 256 MiB; 8 here
    endless = stream(b"*1000000\r\n", b"$3\r\nabc\r\n" * 4096)
    with fake_server(endless) as url, pytest.raises(ReplyTooLarge, match="over 8 MiB in one"):
        ping(url, timeout=30, taking_turns=taking_turns)


@pytest.mark.slow
def test_a_silent_server_at_first_contact_honours_the_timeout() -> None:
    # it was 5 s whatever the setting: such a wait would read the hang-up at 4 s instead
    with fake_server(hangs_up_after(4, silent)) as url:
        proc = run_ckviz(*RUN, "--redis-url", url, env=ckviz_env(CKVIZ_REDIS_TIMEOUT=BOUND))
    (line,) = stderr_lines(proc)
    assert proc.returncode == ExitCode.REDIS
    assert "cannot reach Redis at --redis-url" in line, line
    assert f"no whole reply within {BOUND} s (CKVIZ_REDIS_TIMEOUT)" in line, line


@pytest.mark.slow
def test_a_trickling_server_at_first_contact_is_cut_at_the_timeout() -> None:
    # a reply without end: a wait without bound would read the hang-up at 4 s instead
    with fake_server(hangs_up_after(4, trickle(b"$100000\r\n", every_s=0.2))) as url:
        proc = run_ckviz(
            *RUN, "--redis-url", url, env=ckviz_env(CKVIZ_REDIS_TIMEOUT=BOUND), timeout=30
        )
    (line,) = stderr_lines(proc)
    assert proc.returncode == ExitCode.REDIS
    assert f"no whole reply within {BOUND} s (CKVIZ_REDIS_TIMEOUT)" in line, line


@pytest.mark.parametrize(
    ("behave", "said"),
    [
        (once(b"*2147483647\r\n"), "reply too large: an array of 2147483647 elements announced"),
        (
            trickle(b"*3\r\n$100000\r\n", every_s=0.2),
            f"no whole reply within {BOUND_PROXIED} s",
        ),
    ],
)
@pytest.mark.slow
def test_mid_run_a_bad_reply_is_one_line_and_the_results_are_kept(
    redis_server: RedisServer, tmp_path: Path, behave: object, said: str
) -> None:
    if "@" in redis_server.url:
        pytest.skip("the proxy passes no password")
    out = tmp_path / "r.json"
    with proxy(redis_server.url, b"EVALSHA", behave) as url:  # type: ignore[arg-type]
        proc = run_ckviz(
            *RUN,
            "--redis-url",
            url,
            "--out",
            str(out),
            env=ckviz_env(CKVIZ_REDIS_TIMEOUT=BOUND_PROXIED),
            timeout=60,
        )
    errors = [line for line in stderr_lines(proc) if line.startswith("ckviz: error")]
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert len(errors) == 1 and "lost the Redis server" in errors[0], errors
    assert said in errors[0]
    assert json.loads(out.read_text())["complete"] is False
