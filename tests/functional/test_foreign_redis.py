"""Someone else's Redis: ckviz refuses a used prefix root unless told, writes and deletes only
under its own `<root>:<random>:` namespace, and sweeps it even when the run fails."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from ckviz.errors import ExitCode
from ckviz.sim.cell.namespace import PrefixInUse, claim_namespace
from ckviz.store.server import connect
from tests.functional.trust_support import (
    OwnRedis,
    own_redis,
    refused_here,
    run_ckviz,
    stderr_lines,
)

B = "{org:o-ck}:proj:p-ck:env:e-ck:queue:task/base"
LOOK_ALIKES = [  # keys a careless tool could take for its own
    f"{B}:ckIndex",
    f"{B}:ck:heavy",
    f"{B}:ck:heavy:currentConcurrency",
    "{org:o-ck}:proj:p-ck:env:e-ck:currentConcurrency",
    "{org:o-ck}:env:e-ck",
    "{org:o-ck}:message:heavy~0#0",
    "masterQueue:shard:0",
    "ckviz",
    "ckvizz:1",
    "ckviz-test:x",
    "other:ckviz:x",
    "CKVIZ:1",
    "ckviz\\:escaped",
    "ckviz*",
]
UNDER_OUR_ROOT = [  # only present in some tests: they make the root 'ckviz' used
    "ckviz:0:",
    f"ckviz:abcdef012345:0:{B}:ckIndex",
    "ckviz:abcdef012345:0:masterQueue:shard:0",
    "ckviz:user-data",
]
RUN = ("--headless", "--scenario", "ck_skew", "--discipline", "sfq", "--discipline", "baseline")


def fill(client: redis.Redis, names: list[str]) -> None:
    """One key of each type per name, some with a TTL."""
    for i, name in enumerate(names):
        kind = i % 5
        if kind == 0:
            client.set(name, f"v{i}")
        elif kind == 1:
            client.zadd(name, {f"m{i}": i, "x": 0})
        elif kind == 2:
            client.sadd(name, f"s{i}", "t")
        elif kind == 3:
            client.hset(name, mapping={"f": i})
        else:
            client.rpush(name, i, i + 1)
        if i % 3 == 0:
            client.expire(name, 3600)


def snapshot(url: str) -> dict[bytes, tuple[bytes | None, bool]]:
    """Every key on the server with its serialized value and whether it has a TTL."""
    raw = connect(url, decode_responses=False)
    try:
        return {k: (raw.dump(k), raw.ttl(k) > 0) for k in raw.scan_iter(count=1000)}
    finally:
        raw.close()


@pytest.fixture
def server() -> Iterator[OwnRedis]:
    with own_redis() as s:
        fill(s.client(), LOOK_ALIKES)
        yield s


@pytest.mark.slow
def test_look_alike_keys_are_untouched_by_a_run(server: OwnRedis, tmp_path: Path) -> None:
    before = snapshot(server.url)
    proc = run_ckviz(*RUN, "--redis-url", server.url, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == 0, proc.stderr
    assert snapshot(server.url) == before
    assert json.loads((tmp_path / "r.json").read_text())["complete"] is True


@pytest.mark.slow
def test_a_used_root_is_refused_and_nothing_is_written(server: OwnRedis, tmp_path: Path) -> None:
    fill(server.client(), UNDER_OUR_ROOT)
    before = snapshot(server.url)
    proc = refused_here(*RUN, "--redis-url", server.url, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert line.startswith("ckviz: error: --prefix ckviz:") and "--reuse-prefix" in line
    assert snapshot(server.url) == before
    assert not (tmp_path / "r.json").exists()


@pytest.mark.slow
def test_reuse_prefix_shares_the_root_and_leaves_the_others_alone(
    server: OwnRedis, tmp_path: Path
) -> None:
    fill(server.client(), UNDER_OUR_ROOT)
    before = snapshot(server.url)
    args = (*RUN, "--redis-url", server.url, "--reuse-prefix", "--out", str(tmp_path / "r.json"))
    proc = run_ckviz(*args)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(server.url) == before


@pytest.mark.slow
def test_another_prefix_root_is_used_and_swept(server: OwnRedis, tmp_path: Path) -> None:
    fill(server.client(), UNDER_OUR_ROOT)
    before = snapshot(server.url)
    seen: set[str] = set()
    stop = threading.Event()

    def watch() -> None:
        client = server.client()
        while not stop.is_set():
            seen.update(client.scan_iter(match="*", count=1000))
            stop.wait(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        args = (*RUN, "--redis-url", server.url, "--prefix", "team-a.bench")
        proc = run_ckviz(*args, "--out", str(tmp_path / "r.json"))
    finally:
        stop.set()
        watcher.join()
    assert proc.returncode == 0, proc.stderr
    ours = {k for k in seen if k.encode() not in before}
    assert ours and all(k.startswith("team-a.bench:") for k in ours)
    assert snapshot(server.url) == before


@pytest.mark.slow
def test_a_failing_run_sweeps_its_namespace_and_nothing_else(
    server: OwnRedis, tmp_path: Path
) -> None:
    before = snapshot(server.url)
    client = server.client()
    stop = threading.Event()

    def raise_env_limits() -> None:  # breaks the env-limit invariant in every cell it reaches
        while not stop.is_set():
            for name in client.scan_iter(match="ckviz:*:env:e-ck:concurrency", count=1000):
                client.set(name, 40, xx=True)  # XX: never recreate a key ckviz already swept
            stop.wait(0.001)

    tamper = threading.Thread(target=raise_env_limits, daemon=True)
    tamper.start()
    try:
        proc = run_ckviz(*RUN, "--redis-url", server.url, "--out", str(tmp_path / "r.json"))
    finally:
        stop.set()
        tamper.join()
    assert proc.returncode == ExitCode.CHECK_FAILED, proc.stderr
    assert snapshot(server.url) == before


@pytest.mark.parametrize("root", ["", "a b", "ckviz:", "*", "x" * 65, "ckviz\n", "é"])
@pytest.mark.slow
def test_unusable_prefixes_are_a_one_line_usage_error(root: str, tmp_path: Path) -> None:
    proc = refused_here(*RUN, "--prefix", root, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert line.startswith("ckviz: error: --prefix")


def test_claim_namespace_on_the_api(server: OwnRedis) -> None:
    client = server.client()
    namespace = claim_namespace(client, "fresh")
    assert namespace.startswith("fresh:") and namespace.endswith(":")
    client.set("fresh:theirs", 1)
    with pytest.raises(PrefixInUse):
        claim_namespace(client, "fresh")
    assert claim_namespace(client, "fresh", reuse=True) != namespace
    assert client.get("fresh:theirs") == "1"
