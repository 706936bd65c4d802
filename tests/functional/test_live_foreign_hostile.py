"""`ckviz watch`, `capture` and `whatif` on a queue whose content ckviz did not write and no one
vetted (tests/functional/foreign_queue.py's layout, then bent by hand): names with control
characters, `##[`, bidi marks; a huge variant; messages that are not JSON or lack fields; a
queued run without a message; keys of an unexpected type under the prefix. Each command says
one line or shows a marked picture, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from ckviz.store.server import RedisServer
from tests.functional.cli_support import exits
from tests.functional.foreign_queue import ForeignQueue
from tests.functional.live_support import read_only_user, server_now_ms
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)
from tests.functional.test_ci_log_lines import acting
from tests.functional.trust_support import all_output_here

HOSTILE_NAME = "task/\x1b[31mred\u202eevil\n##[error]x"
HOSTILE_KEY = "##[stop-commands]\x07\u202ek:\u0000z"


@pytest.fixture
def watcher(redis_server: RedisServer, prefix: str) -> Iterator[str]:  # noqa: F811
    with read_only_user(redis_server, prefix) as url:
        yield url


def queue(client: redis.Redis, prefix: str, name: str = "task/q") -> ForeignQueue:
    made = ForeignQueue(client, prefix, "org1", "proj1", "env1", name)
    now = server_now_ms(client)
    for i in range(4):
        made.enqueue(f"run_{i}", f"k{i % 2}", now - 1000 + i)
    return made


def no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text


def all_three(
    url: str,
    prefix: str,
    queue_text: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> list[tuple[int, str]]:
    """watch (the list, a picture as text and JSON), a short capture and a whatif, as a user
    runs them under GitHub Actions: (exit code, all it printed). In this process as in a new
    one (trust_support.all_output_here), with test_ci_log_lines.actions_env's settings."""
    for name in [k for k in os.environ if k.startswith("GITHUB_")]:
        monkeypatch.delenv(name)
    actions = {"GITHUB_ACTIONS": "true"}

    def ckviz(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return all_output_here(capfd, monkeypatch, *args, env=env)

    watched = ["--redis-url", url, "--prefix", prefix]
    runs = [
        ckviz("watch", *watched, env=actions),
        ckviz("watch", *watched, "--queue", queue_text, "--once", env=actions),
        ckviz("watch", *watched, "--queue", queue_text, "--once", "--json", env=actions),
        ckviz(
            "capture",
            *watched,
            "--queue",
            queue_text,
            "--seconds",
            "0.3",
            "--method",
            "poll",
            "--interval",
            "0.1",
            "--out",
            str(tmp_path / "trace.csv"),
            env=actions,
        ),
        ckviz(
            "whatif",
            *watched,
            "--queue",
            queue_text,
            "--headless",
            "--discipline",
            "baseline",
            "--out",
            str(tmp_path / "whatif.json"),
            env=actions,
        ),
    ]
    for run in runs:
        no_traceback(run.stdout, run.stderr)
        assert acting(run.stdout) == [] and acting(run.stderr) == [], run.stdout + run.stderr
    return [(run.returncode, run.stdout + run.stderr) for run in runs]


@pytest.mark.slow
def test_hostile_names_are_shown_inert(
    watcher: str,
    client: redis.Redis,
    prefix: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = queue(client, prefix, HOSTILE_NAME)
    made.enqueue("run_h", HOSTILE_KEY, server_now_ms(client) - 5000)
    results = all_three(watcher, prefix, "evil", tmp_path, capfd, monkeypatch)
    assert [code for code, _ in results[:4]] == [0, 0, 0, 0], results
    # a fork refuses a key with control characters (a trace's rule), in one line
    code, said = results[4]
    assert code != 0 and len([x for x in said.splitlines() if x.startswith("ckviz:")]) == 1
    for _, text in results:
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    picture = json.loads(results[2][1].splitlines()[0])
    assert picture["queue"]["name"] == HOSTILE_NAME
    assert HOSTILE_KEY in [row["key"] for row in picture["variants"]]


def test_a_huge_variant_is_counted_not_read_whole(
    watcher: str, client: redis.Redis, prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    made = queue(client, prefix)
    now = server_now_ms(client)
    pipe = client.pipeline(transaction=False)
    for start in range(0, 120_000, 5000):
        pipe.zadd(
            made.variant("huge"),
            {f"r{i:07d}": now - 200_000 + i for i in range(start, start + 5000)},
        )
    pipe.zadd(made.q(":ckIndex"), {made.member("huge"): now - 200_000})
    pipe.execute()
    args = ["watch", "--redis-url", watcher, "--prefix", prefix, "--queue", "task/q"]
    code, out, err = exits([*args, "--once", "--json"], capsys)
    assert (code, err) == (0, "")
    rows = {row["key"]: row for row in json.loads(out)["variants"]}
    assert rows["huge"]["depth"] == 120_000 and rows["huge"]["head_run"] == "r0000000"


@pytest.mark.parametrize(
    "message",
    [b"not json {", b"[]", b"{}", b'{"attempt": "x", "timestamp": null, "queue": 7}'],
    ids=["not-json", "a-list", "empty", "wrong-types"],
)
def test_a_message_that_is_not_the_reference_s(
    watcher: str,
    client: redis.Redis,
    prefix: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    message: bytes,
) -> None:
    made = queue(client, prefix)
    made.dequeue(1, server_now_ms(client))  # one held run, whose message is bent too
    for i in range(4):
        client.set(made.message_key(f"run_{i}"), message)
    results = watch_and_capture(watcher, prefix, tmp_path, capsys)
    assert [code for code, _ in results] == [0, 0, 0, 0], results


@pytest.mark.slow
def test_a_queued_run_without_a_message(
    watcher: str,
    client: redis.Redis,
    prefix: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = queue(client, prefix)
    made.dequeue(1, server_now_ms(client))
    client.set(made.message_key("run_1"), b"\xff not json")
    client.delete(made.message_key("run_0"), made.message_key("run_2"))
    results = all_three(watcher, prefix, "task/q", tmp_path, capfd, monkeypatch)
    assert [code for code, _ in results] == [0, 0, 0, 0, 0], results


@pytest.mark.parametrize(
    ("suffix", "write"),
    [
        (":ck:k0", "string"),  # a variant ckIndex names
        (":concurrency", "zset"),  # a limit
        (":ckVtime", "string"),
        (":ckVtimeFloor", "zset"),
        (":ck:k0:currentConcurrency", "string"),  # a variant's held set
        (":currentConcurrency", "string"),  # the queue's held set
        (":lengthCounter", "set"),
    ],
)
def test_a_key_of_an_unexpected_type(
    watcher: str,
    client: redis.Redis,
    prefix: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    suffix: str,
    write: str,
) -> None:
    made = queue(client, prefix)
    wrong = made.q(suffix)
    client.delete(wrong)
    if write == "string":
        client.set(wrong, "surprise")
    elif write == "zset":
        client.zadd(wrong, {"surprise": 1})
    else:
        client.sadd(wrong, "surprise")
    for code, text in watch_and_capture(watcher, prefix, tmp_path, capsys):
        lines = [line for line in text.splitlines() if line.startswith("ckviz:")]
        assert code == 0 or len(lines) == 1, text


def test_a_ck_index_that_is_not_a_zset_is_not_a_queue(
    watcher: str,
    client: redis.Redis,
    prefix: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    queue(client, prefix)
    client.set(f"{prefix}{{org:o9}}:proj:p:env:e:queue:task/odd:ckIndex", "a string")
    client.set(f"{prefix}notaqueue:ckIndex", "no org in its name")
    results = watch_and_capture(watcher, prefix, tmp_path, capsys)
    assert [code for code, _ in results] == [0, 0, 0, 0], results
    assert "task/odd" not in results[0][1]


def watch_and_capture(
    url: str, prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> list[tuple[int, str]]:
    """In this process: watch's list, a picture as JSON and text, a short capture."""
    watched = ["--redis-url", url, "--prefix", prefix]
    out = str(tmp_path / "trace.csv")
    results = []
    for args in (
        ["watch", *watched],
        ["watch", *watched, "--queue", "task/q", "--once", "--json"],
        ["watch", *watched, "--queue", "task/q", "--once"],
        [
            *("capture", *watched, "--queue", "task/q", "--seconds", "0.2"),
            *("--method", "poll", "--interval", "0.1", "--out", out, "--force", "--quiet"),
        ],
    ):
        code, printed, err = exits(args, capsys)
        no_traceback(printed, err)
        results.append((code, printed + err))
    return results


def test_bytes_that_are_not_utf8_are_read_not_a_traceback(
    watcher: str,
    client: redis.Redis,
    prefix: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    made = queue(client, prefix)
    made.dequeue(1, server_now_ms(client))
    for i in range(4):
        client.set(made.message_key(f"run_{i}"), b"\xff\xfe{")
    results = watch_and_capture(watcher, prefix, tmp_path, capsys)
    assert [code for code, _ in results] == [0, 0, 0, 0], results


def test_a_key_a_scenario_cannot_name_is_said_before_the_fork(
    watcher: str, client: redis.Redis, prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    made = queue(client, prefix)
    made.enqueue("run_bell", "a\x07b", server_now_ms(client))
    args = ["whatif", "--redis-url", watcher, "--prefix", prefix, "--queue", "task/q"]
    code, out, err = exits([*args, "--headless", "--quiet"], capsys)
    assert code != 0 and out == ""
    (line,) = err.splitlines()
    assert "concurrency key 'a\\x07b' cannot be forked" in line, line
    assert "control characters" in line and "fork.csv" not in line
