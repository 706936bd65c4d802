"""A server that says no: ACLs, a replica, a cluster, maxmemory and eviction, a password in
the URL. Each is a redis-server this test starts (same binary as the embedded mode): one line,
the right exit code, the password never shown, and nobody else's key lost. ckviz runs in this
process as in a new one, all it prints read (trust_support.all_output_here)."""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from ckviz.errors import ExitCode, ServerRefused
from ckviz.model.queue import PlannedRun
from ckviz.sim.cell.session import new_namespace
from ckviz.store.preflight import refusal
from ckviz.store.runqueue import RunQueue
from tests.functional.trust_support import (
    OwnRedis,
    all_output_here,
    own_redis,
    refused_here,
    stderr_lines,
)

pytestmark = pytest.mark.slow

RUN = ("--headless", "--scenario", "ck_trickle", "--discipline", "sfq", "--seeds", "seed-a")
SECRET = "s3cret-pw"


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_here(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """`ckviz ARGS` (env=... for its settings) in this process, as in a new one."""
    return functools.partial(all_output_here, capfd, monkeypatch)


def with_user(server: OwnRedis, *rules: str) -> str:
    """A URL for a user `limited` with `rules` on top of all commands and keys."""
    server.client().acl_setuser(
        "limited",
        enabled=True,
        passwords=[f"+{SECRET}"],
        keys=["*"],
        channels=["*"],
        commands=["+@all", *rules],
    )
    return f"unix://limited:{SECRET}@{server.socket}"


def one_error(proc) -> str:  # type: ignore[no-untyped-def]
    assert "Traceback" not in proc.stderr
    errors = [line for line in stderr_lines(proc) if line.startswith("ckviz: error")]
    assert len(errors) == 1, proc.stderr
    assert SECRET not in proc.stderr + proc.stdout
    return errors[0]


def test_keys_ckviz_could_not_delete_are_reported(run_here: Run, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with own_redis() as server:
        url = with_user(server, "-unlink")
        proc = run_here(*RUN, "--redis-url", url, "--out", str(out))
        left = [k for k in server.client().scan_iter(count=1000)]
    assert proc.returncode == ExitCode.KEYS_LEFT, proc.stderr
    line = one_error(proc)
    namespace = line.split("keys under '")[1].split("'")[0]
    assert f"{len(left)} keys under '{namespace}' could not be deleted" in line
    assert "permission denied by the server's ACL" in line
    assert left and all(k.startswith(namespace) for k in left)
    results = json.loads(out.read_text())
    assert "could not be deleted" in results["error"]


@pytest.mark.parametrize("command", ["hunt", "stress"])
def test_hunt_and_stress_report_the_keys_they_could_not_delete(
    run_here: Run, command: str, tmp_path: Path
) -> None:
    args = {
        "hunt": (
            "hunt",
            "--discipline",
            "sfq",
            "--examples",
            "2",
            "--out",
            str(tmp_path / "f.toml"),
        ),
        "stress": ("stress", "--seconds", "0.5"),
    }[command]
    with own_redis() as server:
        url = with_user(server, "-unlink")
        proc = run_here(*args, "--redis-url", url)
        left = [k for k in server.client().scan_iter(count=1000)]
    assert proc.returncode == ExitCode.KEYS_LEFT, proc.stderr
    line = one_error(proc)
    namespace = line.split("keys under '")[1].split("'")[0]
    assert f"{len(left)} keys under '{namespace}' could not be deleted" in line
    assert left and all(k.startswith(namespace) for k in left)


@pytest.mark.parametrize("command", ["headless", "stress"])
def test_an_acl_refusal_inside_a_script_is_a_redis_error(
    run_here: Run, command: str, tmp_path: Path
) -> None:
    """The user may call EVALSHA but not ZADD, which the enqueue script calls: Redis 6.2 says
    "The user executing the script can't run this command or subcommand"."""
    args = {
        "headless": (*RUN, "--out", str(tmp_path / "r.json")),
        "stress": ("stress", "--seconds", "0.5"),
    }[command]
    with own_redis() as server:
        url = with_user(server, "-zadd")
        proc = run_here(*args, "--redis-url", url)
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert "permission denied by the server's ACL" in one_error(proc)


@pytest.mark.parametrize(
    ("rule", "needle"),
    [
        ("-script", "Redis refused SCRIPT LOAD: permission denied by the server's ACL"),
        ("-mset", "Redis refused MSET"),  # the limits written at open
        ("-set", "permission denied by the server's ACL"),  # a script's SET (lengthCounter)
        ("-evalsha", "Redis refused EVALSHA: permission denied by the server's ACL"),
    ],
)
def test_a_refused_command_is_a_redis_error(
    run_here: Run, rule: str, needle: str, tmp_path: Path
) -> None:
    with own_redis() as server:
        url = with_user(server, rule)
        proc = run_here(*RUN, "--redis-url", url, "--out", str(tmp_path / "r.json"))
        assert server.client().keys("ckviz:*") == []
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert needle in one_error(proc)


def test_out_of_memory_is_a_redis_error(run_here: Run, tmp_path: Path) -> None:
    with own_redis("--maxmemory", "1mb", "--maxmemory-policy", "noeviction") as server:
        proc = run_here(*RUN, "--redis-url", server.url, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert "the server is out of memory" in one_error(proc)


def test_a_replica_is_refused_before_the_first_cell(run_here: Run, tmp_path: Path) -> None:
    with own_redis("--replicaof", "127.0.0.1", "1") as server:
        proc = run_here(*RUN, "--redis-url", server.url, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert "is a read-only replica" in one_error(proc)
    assert not (tmp_path / "r.json").exists()


# a cluster node on port 0 binds its bus on port 10000: two at once collide (the second never
# answers), so every such test runs on one worker, one after another
@pytest.mark.xdist_group("cluster-bus-10000")
def test_a_cluster_node_over_a_unix_socket_is_refused_before_the_first_cell(
    run_here: Run,
    tmp_path: Path,
) -> None:
    """A cluster is reached by redis:// (its nodes announce addresses); test_cluster.py runs
    the matrix on a real one."""
    args = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
    with own_redis(*args) as server:
        proc = run_here(*RUN, "--redis-url", server.url, "--out", str(tmp_path / "r.json"))
        own = server.client()
        own.execute_command("CLUSTER", "ADDSLOTS", *range(16384))
        with pytest.raises(redis.ResponseError) as crossslot:  # what a cell would meet
            own.execute_command("MSET", "a", "1", "b", "2")
    cause = refusal(crossslot.value)
    assert cause and cause.startswith("the server is a Redis Cluster (keys in different slots)")
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert one_error(proc).endswith("is a cluster node: give a redis:// URL")


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("http://x", "is not a Redis URL"),
        ("redis://localhost:6379/abc", "database 'abc'"),
        ("redis://localhost:notaport/0", "is not a valid URL"),
        (f"http://u:{SECRET}@x", "'http://u:***@x' is not a Redis URL"),
    ],
)
def test_a_bad_url_is_a_usage_error(url: str, needle: str, tmp_path: Path) -> None:
    proc = refused_here(*RUN, "--redis-url", url, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == ExitCode.USAGE, proc.stderr
    assert needle in one_error(proc)


@pytest.mark.parametrize("via_env", [False, True])
def test_the_password_is_never_shown(run_here: Run, via_env: bool, tmp_path: Path) -> None:
    url = f"redis://:{SECRET}@127.0.0.1:1/0"  # nothing listens on port 1
    env = {"CKVIZ_REDIS_URL": url} if via_env else {}
    args = () if via_env else ("--redis-url", url)
    proc = run_here(*RUN, *args, "--out", str(tmp_path / "r.json"), env=env)
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    line = one_error(proc)
    source = "CKVIZ_REDIS_URL" if via_env else "--redis-url"
    assert f"cannot reach Redis at {source} redis://:***@127.0.0.1:1/0" in line


def test_eviction_risk_is_refused_and_nobody_loses_a_key(run_here: Run, tmp_path: Path) -> None:
    with own_redis("--maxmemory-policy", "allkeys-random") as server:
        client = server.client()
        for i in range(50):
            client.set(f"owner:{i}", "x" * 1000)
        used = int(client.info("memory")["used_memory"])
        client.config_set("maxmemory", used + 200_000)  # little headroom
        proc = run_here(*RUN, "--redis-url", server.url, "--out", str(tmp_path / "r.json"))
        assert proc.returncode == ExitCode.REDIS, proc.stderr
        line = one_error(proc)
        assert "evicts keys (allkeys-random)" in line and "--allow-eviction-risk" in line
        assert client.dbsize() == 50
        proc = run_here("stress", "--redis-url", server.url)  # stress checks it too
        assert proc.returncode == ExitCode.REDIS, proc.stderr
        assert "--allow-eviction-risk" in one_error(proc)
        assert client.dbsize() == 50
        # with the flag, ckviz runs (and may evict: the owner said so)
        proc = run_here(
            *RUN,
            "--redis-url",
            server.url,
            "--allow-eviction-risk",
            "--out",
            str(tmp_path / "r.json"),
        )
        assert "Traceback" not in proc.stderr


def test_a_vanished_payload_names_eviction(client: redis.Redis, prefix: str) -> None:
    queue = RunQueue(client, prefix, env_limit=4)
    queue.open()
    try:
        trip = queue.trip()
        trip.enqueue(PlannedRun("a", "a~0#0", 0, 10), 0)
        trip.send()
        client.delete(queue.keys.message("a~0#0"))  # as an eviction would
        trip = queue.trip()
        trip.dequeue(1, 1)
        with pytest.raises(
            ServerRefused, match="payload vanished from the server mid-run: evicted"
        ):
            trip.send()
    finally:
        queue.close()


def test_a_non_utf8_key_under_the_root_is_one_line(run_here: Run, tmp_path: Path) -> None:
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    with own_redis() as server:
        connect_raw = redis.Redis(unix_socket_path=str(server.socket))
        connect_raw.set(f"{root}:".encode() + b"\xff\xfe", "theirs")
        args = ("--redis-url", server.url, "--prefix", root)
        proc = run_here(*RUN, *args, "--out", str(tmp_path / "r.json"))
        assert connect_raw.dbsize() == 1
        connect_raw.close()
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert "whose name is not UTF-8 text" in one_error(proc)
