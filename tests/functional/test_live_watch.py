"""`ckviz watch` on a queue the producer writes, as a read-only ACL user (issue 34 items 3, 4,
6): the list, one picture as JSON, and its edges (no queue under the prefix, a queue drained
or deleted while read, a server that is not there, credentials never printed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import redis

from ckviz.errors import ExitCode, RedisUnavailable
from ckviz.live import reading
from ckviz.live.producer import Producer
from ckviz.live.reading import read_picture
from ckviz.store.preflight import url_secrets
from ckviz.store.server import RedisServer, embedded_server
from tests.functional.cli_support import exits
from tests.functional.live_support import Traffic, live_queue, read_only_user, server_now_ms
from tests.functional.servers import redis_server  # noqa: F401  (both servers)

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "live-picture-v1.json"


@pytest.fixture
def watcher_url(redis_server: RedisServer, prefix: str) -> Iterator[str]:  # noqa: F811
    with read_only_user(redis_server, prefix) as url:
        yield url


@pytest.fixture
def traffic(client: redis.Redis, prefix: str) -> Traffic:
    producer = Producer(client, live_queue(prefix), env_limit=4, queue_limit=1)
    producer.open()
    traffic = Traffic(producer, [])
    traffic.arrive(["acme:eu", "acme:eu", "beta", "gamma"], server_now_ms(client) - 3000)
    traffic.serve(1, server_now_ms(client))
    return traffic


def test_watch_lists_the_queues_found(
    watcher_url: str, prefix: str, traffic: Traffic, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = exits(["watch", "--redis-url", watcher_url, "--prefix", prefix], capsys)
    assert (code, err) == (0, "")
    (line,) = out.splitlines()
    assert line.startswith("cm4org00001/cm4proj0001/cm4env00001: task/send-email:v2  keys 3")
    assert "queued 3  held 1" in line


def test_watch_once_json_is_the_picture_and_its_next_order_is_taken(
    watcher_url: str,
    prefix: str,
    traffic: Traffic,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["watch", "--redis-url", watcher_url, "--prefix", prefix, "--queue", "send-email"]
    code, out, err = exits([*args, "--once", "--json", "--batch", "3"], capsys)
    assert (code, err) == (0, "")
    picture: dict[str, Any] = json.loads(out)
    jsonschema.validate(picture, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert picture["queue"]["name"] == "task/send-email:v2"
    assert picture["limits"]["variant_limit"] == 1
    order = [(p["key"], p["fate"]) for p in picture["next_order"]]
    assert order == [("acme:eu", "limit"), ("beta", "served"), ("gamma", "served")]
    taken = traffic.serve(3, int(picture["read_at_ms"]))
    assert taken == [(p["run_id"], p["key"]) for p in picture["next_order"] if p["run_id"]]


def test_watch_once_as_text_says_why(
    watcher_url: str, prefix: str, traffic: Traffic, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["watch", "--redis-url", watcher_url, "--prefix", prefix, "--queue", "send-email"]
    code, out, _ = exits([*args, "--once"], capsys)
    assert code == 0
    assert "next 1. acme:eu: limit: at its limit: holds 1 of 1" in out


def test_no_queue_under_the_prefix_is_one_line_naming_where_they_are(
    watcher_url: str, prefix: str, traffic: Traffic, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = prefix + "nothing-here:"
    code, out, err = exits(["watch", "--redis-url", watcher_url, "--prefix", wrong], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert f"no CK'd queue under the prefix '{wrong}'" in err


def test_a_queue_matching_nothing_is_refused(
    watcher_url: str, prefix: str, traffic: Traffic, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["watch", "--redis-url", watcher_url, "--prefix", prefix, "--queue", "nope"]
    code, _, err = exits([*args, "--once"], capsys)
    assert code == 2
    assert "no queue matches --queue 'nope'; found 'task/send-email:v2'" in err


def test_a_queue_matching_several_is_one_line_naming_them(
    client: redis.Redis,
    watcher_url: str,
    prefix: str,
    traffic: Traffic,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Several queues named: refused in one line that lists them, never one of them guessed."""
    sms = Producer(client, live_queue(prefix, "task/send-sms"), env_limit=4)
    sms.open()
    Traffic(sms, []).arrive(["k"], server_now_ms(client) - 1000)
    for more in (["--once", "--json"], []):
        args = ["watch", "--redis-url", watcher_url, "--prefix", prefix, "--queue", "send", *more]
        code, out, err = exits(args, capsys)
        assert (code, out) == (2, "") and len(err.splitlines()) == 1
        assert "--queue 'send' matches 2 queues: " in err
        assert ":queue:task/send-email:v2'" in err and ":queue:task/send-sms'" in err


def test_without_a_terminal_the_app_is_not_started(
    watcher_url: str, prefix: str, traffic: Traffic, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["watch", "--redis-url", watcher_url, "--prefix", prefix, "--queue", "send-email"]
    code, out, err = exits(args, capsys)
    assert (code, out) == (2, "")
    assert "needs a terminal; use --once --json" in err


def test_a_server_that_is_not_there_is_exit_3_its_password_hidden(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "redis://watcher:s3cret-pw@127.0.0.1:1"
    code, _, err = exits(["watch", "--redis-url", url], capsys)
    assert code == 3
    assert "s3cret-pw" not in err and "127.0.0.1:1" in err


def test_a_drained_queue_reads_as_empty(
    client: redis.Redis, watcher_url: str, traffic: Traffic
) -> None:
    queue = traffic.producer.queue
    reader = redis.Redis.from_url(watcher_url, decode_responses=True)
    traffic.serve(3, server_now_ms(client))  # one run each: beta, gamma; acme:eu at its limit
    traffic.finish(3)
    traffic.serve(3, server_now_ms(client))
    traffic.finish(3)
    picture = read_picture(reader, queue)
    assert picture.empty and picture.next_order == () and picture.variants == ()
    assert client.exists(queue.ck_index) == 0  # the queue's index went with its last run


def test_keys_deleted_between_the_reads_are_noted(
    client: redis.Redis,
    watcher_url: str,
    traffic: Traffic,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queue = traffic.producer.queue
    reader = redis.Redis.from_url(watcher_url, decode_responses=True)
    send = reading._send
    trips: list[int] = []

    def deleting_before_the_second(target: redis.Redis, commands: Any) -> dict[str, Any]:
        trips.append(1)
        if len(trips) == 2:  # another client deletes a variant between the two trips
            client.delete(queue.variant("gamma"))
        return send(target, commands)

    monkeypatch.setattr(reading, "_send", deleting_before_the_second)
    picture = read_picture(reader, queue)
    assert "variant 'gamma' emptied or deleted during the read" in picture.torn


def test_a_server_that_goes_away_mid_watch_is_redis_unavailable() -> None:
    with embedded_server() as server:
        client = server.client()
        queue = live_queue("gone:")
        producer = Producer(client, queue, env_limit=2)
        producer.open()
        Traffic(producer, []).arrive(["a", "b"], server_now_ms(client) - 1000)
        reader = redis.Redis.from_url(server.url, decode_responses=True, socket_timeout=5)
        assert read_picture(reader, queue).index_total == 2
        client.shutdown(nosave=True)  # the server ckviz started for this test, by its own hand
        with pytest.raises(RedisUnavailable) as lost:
            read_picture(reader, queue)
    assert lost.value.exit_code == ExitCode.REDIS


def test_a_refused_login_is_exit_3_its_password_hidden(
    watcher_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (password,) = {s for s in url_secrets(watcher_url) if "%" not in s}
    wrong = watcher_url.replace(password, "not-" + password)
    code, out, err = exits(["watch", "--redis-url", wrong], capsys)
    assert (code, out) == (3, "")
    assert "refused the login" in err and "***" in err
    assert password not in err


def test_watch_sends_only_read_commands(capsys: pytest.CaptureFixture[str]) -> None:
    """Every command the watch sent, from SLOWLOG set to log them all (on a server this test
    starts: never on a watched one)."""
    with embedded_server() as server:
        admin = server.client()
        producer = Producer(admin, live_queue("engine:runqueue:"), vtime=True, env_limit=3)
        producer.open()
        traffic = Traffic(producer, [])
        traffic.arrive(["a:1", "a:1", "b"], server_now_ms(admin) - 1000)
        traffic.serve(1, server_now_ms(admin))
        admin.config_set("slowlog-log-slower-than", 0)
        admin.config_set("slowlog-max-len", 10_000)
        admin.slowlog_reset()
        for args in ([], ["--queue", "send-email", "--once", "--json"]):
            code, _, err = exits(["watch", "--redis-url", server.url, *args], capsys)
            assert (code, err) == (0, "")
        # nobody else talks to this server: every command logged but the admin's is the watch's
        # (those it sent before it named itself too)
        sent = {
            " ".join(str(e["command"], "utf-8").split()[:2]).upper()
            for e in admin.slowlog_get(10_000)
            if not e["command"].startswith(b"SLOWLOG")
        }
        reads = {str(name).upper() for name in admin.acl_cat("read")}
    words = {command.split()[0] for command in sent}
    # SPEC-live 4's list; TIME only because this user may send it (a read-only one reads INFO)
    assert words - reads <= {"PING", "INFO", "SCAN", "CLIENT", "TIME"}
    assert {c for c in sent if c.startswith("CLIENT")} == {"CLIENT SETNAME"}
    assert words >= {"SCAN", "ZRANGE", "ZCARD", "SCARD", "GET", "INFO"}


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--interval", "0"], "watch: --interval must be above 0, not 0.0"),
        (["--batch", "0"], "watch: --batch must be 1..1000, not 0"),
        (["--queue", "q", "--json"], "watch: --json prints one picture: add --once"),
        ([], "watch: give --redis-url URL (or set CKVIZ_REDIS_URL)"),
    ],
)
def test_bad_flags_are_one_line_before_any_connection(
    flags: list[str], said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CKVIZ_REDIS_URL", raising=False)
    url = [] if not flags else ["--redis-url", "redis://127.0.0.1:1"]
    code, out, err = exits(["watch", *url, *flags], capsys)
    assert (code, out) == (2, "")
    assert err == f"ckviz: error: {said}\n"
