"""A password in a Redis URL is never printed, whatever the URL's form and whichever command
or error path prints it: the whole output is searched for the password. A URL refused before
any server answers is run in this process, its output taken from file descriptors 1 and 2 as
well as from sys.stdout and sys.stderr (a logger or a library writing to the real stream is
caught too); each case where a server answers (and refuses) is a real `ckviz` process."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.errors import ExitCode
from ckviz.store.preflight import redact, url_secrets
from ckviz.store.server import connect
from tests.functional.trust_support import (
    OwnRedis,
    all_output_here,
    own_redis,
    run_ckviz,
    stderr_lines,
)

pytestmark = pytest.mark.slow

PW = "Pw-9Kx"  # short pieces of it must not show either
HEADLESS = ("--headless", "--scenario", "ck_trickle", "--discipline", "sfq", "--seeds", "seed-a")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"redis://u:{PW}@h:1/0", "redis://u:***@h:1/0"),
        (f"redis://:{PW}#x@h:1/0", "redis://:***@h:1/0"),
        (f"redis://u:{PW}/x@h:1/0", "redis://u:***@h:1/0"),
        (f"redis://u:{PW}?x@h:1/0", "redis://u:***@h:1/0"),
        (f"redis://u:{PW}@x@h:1/0", "redis://u:***@h:1/0"),
        (f"unix:///tmp/r.sock?password={PW}", "unix:///tmp/r.sock?password=***"),
        (
            f"unix:///tmp/r.sock?db=1&PassWord={PW}#x&y=2",
            "unix:///tmp/r.sock?db=1&PassWord=***&y=2",
        ),
        (f"unix://u:{PW}@/tmp/r.sock", "unix://u:***@/tmp/r.sock"),
        (f"u:{PW}@h:1", "u:***@h:1"),
        ("redis://user@h:1/0", "redis://user@h:1/0"),
    ],
)
def test_redact_hides_the_password_in_every_form(url: str, shown: str) -> None:
    assert redact(url) == shown
    assert (PW in "".join(url_secrets(url))) == (PW in url)


def only_error(proc, code: ExitCode) -> str:  # type: ignore[no-untyped-def]
    assert proc.returncode == code, proc.stderr
    everything = proc.stdout + proc.stderr
    for piece in (PW, PW[:4], PW[-4:]):
        assert piece not in everything, everything
    errors = [line for line in stderr_lines(proc) if line.startswith("ckviz: error")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        (f"redis://u:{PW}/x@127.0.0.1:6379/0", "is not a valid URL (a port that is not a number"),
        (f"redis://:{PW}#x@127.0.0.1:1/0", "is not a valid URL"),
        (f"redis://127.0.0.1:1/0#{PW}", "is not a valid URL (an un-encoded '#'"),
        (f"redis://:{PW}?x@127.0.0.1:1/0", "is not a valid URL"),
        (f"http://u:{PW}@x", "'http://u:***@x' is not a Redis URL"),
        (f"redis://:{PW}@127.0.0.1:1/abc", "database 'abc'"),
    ],
)
@pytest.mark.parametrize("command", ["headless", "hunt", "stress"])
def test_a_bad_url_never_shows_its_password(
    url: str,
    needle: str,
    command: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = {
        "headless": (*HEADLESS, "--out", str(tmp_path / "r.json")),
        "hunt": ("hunt", "--discipline", "sfq", "--out", str(tmp_path / "f.toml")),
        "stress": ("stress",),
    }[command]
    proc = all_output_here(capfd, monkeypatch, *args, "--redis-url", url)
    assert needle in only_error(proc, ExitCode.USAGE)


@pytest.mark.parametrize("command", ["headless", "hunt", "stress"])
def test_a_password_from_the_environment_is_hidden_and_its_source_named(
    command: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = f"redis://127.0.0.1:1/0?password={PW}"  # nothing listens on port 1
    args = {
        "headless": (*HEADLESS, "--out", str(tmp_path / "r.json")),
        "hunt": ("hunt", "--discipline", "sfq", "--out", str(tmp_path / "f.toml")),
        "stress": ("stress",),
    }[command]
    proc = all_output_here(capfd, monkeypatch, *args, env={"CKVIZ_REDIS_URL": url})
    line = only_error(proc, ExitCode.REDIS)
    assert "cannot reach Redis at CKVIZ_REDIS_URL redis://127.0.0.1:1/0?password=***" in line


def with_password(server: OwnRedis) -> str:
    """A unix URL with the password in the query (redis-py's only form for unix://)."""
    server.client().acl_setuser(
        "default", enabled=True, passwords=[f"+{PW}"], keys=["*"], commands=["+@all"]
    )
    return f"unix://{server.socket}?password={PW}"


def test_a_wrong_password_is_refused_without_showing_either(tmp_path: Path) -> None:
    with own_redis() as server:
        url = with_password(server)
        wrong = url.replace(PW, PW[::-1])
        proc = run_ckviz(*HEADLESS, "--redis-url", wrong, "--out", str(tmp_path / "r.json"))
    line = only_error(proc, ExitCode.REDIS)
    assert PW[::-1] not in proc.stderr
    assert "password=***" in line


def test_a_replica_refusal_hides_the_password(tmp_path: Path) -> None:
    with own_redis("--replicaof", "127.0.0.1", "1") as server:
        url = with_password(server)
        proc = run_ckviz(*HEADLESS, "--redis-url", url, "--out", str(tmp_path / "r.json"))
    assert "is a read-only replica" in only_error(proc, ExitCode.REDIS)


def test_an_eviction_refusal_hides_the_password(tmp_path: Path) -> None:
    with own_redis("--maxmemory-policy", "allkeys-lru") as server:
        url = with_password(server)
        client = connect(url)
        client.config_set("maxmemory", int(client.info("memory")["used_memory"]) + 50_000)
        proc = run_ckviz("stress", "--redis-url", url)
    assert "evicts keys (allkeys-lru)" in only_error(proc, ExitCode.REDIS)


# a cluster node on port 0 binds its bus on port 10000: two at once collide (the second never
# answers), so every such test runs on one worker, one after another
@pytest.mark.xdist_group("cluster-bus-10000")
@pytest.mark.parametrize(
    ("command", "needle"),
    [
        ("hunt", "is a Redis Cluster node; only --headless runs on a cluster"),
        ("stress", "is a Redis Cluster node; only --headless runs on a cluster"),
        ("headless", "is a cluster node: give a redis:// URL"),
    ],
)
def test_a_cluster_refusal_hides_the_password(command: str, needle: str, tmp_path: Path) -> None:
    args = {
        "headless": (*HEADLESS, "--out", str(tmp_path / "r.json")),
        "hunt": ("hunt", "--discipline", "sfq", "--out", str(tmp_path / "f.toml")),
        "stress": ("stress",),
    }[command]
    with own_redis("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf") as server:
        url = with_password(server)
        proc = run_ckviz(*args, "--redis-url", url)
    line = only_error(proc, ExitCode.REDIS)
    assert needle in line and "password=***" in line
