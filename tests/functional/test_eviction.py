"""A server that evicts (allkeys-lru) and holds someone else's keys: ckviz's estimate of what it
will write comes from the workload's own names (measured on a sample with MEMORY USAGE), every
command that writes checks it, and with --allow-eviction-risk the keys evicted are counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from ckviz.errors import ExitCode
from ckviz.sim.cell.footprint import FIXED_BYTES, need_of
from ckviz.sim.cell.session import new_namespace
from tests.functional.trust_support import OwnRedis, own_redis, run_ckviz, stderr_lines

OWNER_KEYS = 300
LONG = 190  # characters of each key name (the most a key name may have is 200)
OLD_BYTES_PER_RUN, OLD_BYTES_PER_KEY = 640, 2048  # the estimate before: whatever the names


def long_key_trace(path: Path, keys: int, runs_per_key: int) -> Path:
    lines = ["key,arrival_ms,hold_ms"]
    for i in range(runs_per_key):
        lines += [f"{'k' * LONG}{k:03d},{i},1" for k in range(keys)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def fill_with_owner_keys(client: redis.Redis) -> None:
    for i in range(OWNER_KEYS):
        client.set(f"owner:{i}", "x" * 1000)


def set_headroom(client: redis.Redis, headroom: int) -> None:
    client.config_set("maxmemory", int(client.info("memory")["used_memory"]) + headroom)


def test_long_names_are_measured_and_nobody_loses_a_key(tmp_path: Path) -> None:
    """Before, 640 bytes a run whatever the names: this trace fitted, ran, and evicted the
    owner's keys. Its 190-character keys and run ids take about three times that."""
    keys, per_key = 40, 50
    trace = long_key_trace(tmp_path / "long.csv", keys, per_key)
    old_estimate = keys * per_key * OLD_BYTES_PER_RUN + keys * OLD_BYTES_PER_KEY + FIXED_BYTES
    with own_redis("--maxmemory-policy", "allkeys-lru") as server:
        client = server.client()
        fill_with_owner_keys(client)
        set_headroom(client, old_estimate + 300_000)  # the old estimate would have run
        proc = run_ckviz(
            "--headless",
            "--scenario",
            str(trace),
            "--discipline",
            "baseline",
            "--jobs",
            "1",
            "--redis-url",
            server.url,
            "--out",
            str(tmp_path / "r.json"),
        )
        assert client.dbsize() == OWNER_KEYS  # the sample was deleted, nothing evicted
        assert client.info("stats")["evicted_keys"] == 0
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    (line,) = stderr_lines(proc)
    assert "evicts keys (allkeys-lru)" in line and "--allow-eviction-risk" in line
    assert not (tmp_path / "r.json").exists()


def test_the_measured_need_follows_the_names(tmp_path: Path) -> None:
    """Same runs, longer names: more bytes, in proportion (a sample, measured)."""
    from ckviz.inputs import scenario_files

    long_names = scenario_files.load_any(str(long_key_trace(tmp_path / "l.csv", 10, 30)))
    (tmp_path / "s.csv").write_text(
        (tmp_path / "l.csv").read_text().replace("k" * LONG, "k"), encoding="utf-8"
    )
    short_names = scenario_files.load_any(str(tmp_path / "s.csv"))
    with own_redis() as server:
        client = server.client()
        namespace = new_namespace("evictiontest")
        free = 1 << 30
        long_need = need_of([long_names], lanes=1)(client, namespace, free) - FIXED_BYTES
        short_need = need_of([short_names], lanes=1)(client, namespace, free) - FIXED_BYTES
        assert client.dbsize() == 0  # the samples are gone
    assert long_need > 3 * short_need > 0
    assert long_need > 300 * OLD_BYTES_PER_RUN  # more than the old estimate of these runs


@pytest.mark.slow
def test_hunt_checks_eviction_too(tmp_path: Path) -> None:
    with own_redis("--maxmemory-policy", "allkeys-lru") as server:
        client = server.client()
        fill_with_owner_keys(client)
        set_headroom(client, 100_000)
        proc = run_ckviz(
            "hunt",
            "--discipline",
            "sfq",
            "--out",
            str(tmp_path / "f.toml"),
            "--redis-url",
            server.url,
        )
        assert client.dbsize() == OWNER_KEYS
    assert proc.returncode == ExitCode.REDIS, proc.stderr
    assert "evicts keys (allkeys-lru)" in stderr_lines(proc)[-1]
    assert not (tmp_path / "f.toml").exists()


def run_with_risk(server: OwnRedis, out: Path) -> tuple[int, list[str], dict[str, object]]:
    proc = run_ckviz(
        "--headless",
        "--scenario",
        "ck_trickle",
        "--discipline",
        "sfq",
        "--seeds",
        "seed-a",
        "--allow-eviction-risk",
        "--redis-url",
        server.url,
        "--out",
        str(out),
    )
    results = json.loads(out.read_text(encoding="utf-8"))
    return proc.returncode, stderr_lines(proc), results["redis"]


@pytest.mark.parametrize("headroom", [40_000, 50_000_000])
@pytest.mark.slow
def test_allow_eviction_risk_counts_the_keys_evicted(headroom: int, tmp_path: Path) -> None:
    with own_redis("--maxmemory-policy", "allkeys-lru") as server:
        client = server.client()
        fill_with_owner_keys(client)
        set_headroom(client, headroom)
        code, lines, redis_info = run_with_risk(server, tmp_path / "r.json")
        evicted = int(client.info("stats")["evicted_keys"])
    assert redis_info["evicted_keys"] == evicted
    counted = [line for line in lines if "keys during the run (--allow-eviction-risk)" in line]
    if headroom > 1_000_000:  # room enough: nothing evicted, nothing said
        assert (code, evicted, counted) == (0, 0, [])
    else:
        assert evicted > 0, lines
        assert counted == [
            f"ckviz: warning: the server evicted {evicted} keys during the run "
            "(--allow-eviction-risk): some may have been others'"
        ]
