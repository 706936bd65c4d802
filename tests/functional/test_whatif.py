"""`ckviz whatif` against a queue on the real layout, on Redis 6.2 and 7: the fork written into
ckviz's namespace equals the watched state key for key (queued runs in their order and ages,
held runs, per concurrency key), every discipline runs forward from it headless, the watched
server is never written (INFO commandstats, and as a read-only ACL user), and a drained queue
is one line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import redis
from redis.connection import parse_url

from ckviz.inputs.scenario_files import load
from ckviz.live.producer import Producer
from ckviz.live.state import read_queue, variant_held
from ckviz.live.whatif import OTHERS, fork_of, write_fork
from ckviz.model.clock import SCORE_BASE
from ckviz.model.matrix import Treatment
from ckviz.sim.cell.session import open_cell
from ckviz.store.keys import KeyLayout
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, ckviz_here
from tests.functional.live_support import QUEUE_NAME, live_queue, read_only_user
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

WRITES = ("set", "sadd", "srem", "zadd", "zrem", "del", "evalsha", "eval", "incr", "decr")


@pytest.fixture
def server(request: pytest.FixtureRequest) -> RedisServer:
    """The test's server: 6.2, then 7 (servers.py's `redis_server`, by its name)."""
    found: RedisServer = request.getfixturevalue("redis_server")
    return found


def busy_queue(client: redis.Redis, prefix: str, vtime: bool = False) -> Producer:
    """Twelve runs of four keys (one with a ':'), three of them dequeued and held."""
    producer = Producer(client, live_queue(prefix), vtime=vtime, env_limit=3)
    producer.open()
    now = int(time.time() * 1000)
    for i in range(12):
        producer.enqueue(f"run_{i:03d}", f"tenant:{i % 3}" if i < 9 else "big", now - 9000 + i)
    assert len(producer.dequeue(3, now)) == 3
    return producer


def writes(client: redis.Redis) -> int:
    stats = client.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in WRITES)


def test_the_fork_in_ckviz_s_namespace_equals_the_watched_state(
    server: RedisServer, client: redis.Redis, prefix: str, tmp_path: Path
) -> None:
    busy_queue(server.client(), prefix)
    queue = live_queue(prefix)
    state = read_queue(server.client(), queue, messages=False)
    fork = fork_of(state, lambda key: 500)
    assert (fork.queued, fork.held, fork.env_limit) == (9, 3, 3)
    scenario = load(str(write_fork(tmp_path, fork, "whatif", ["a test's fork"])))
    own = f"{prefix}fork:"
    with open_cell(client, scenario, "seed-a", Treatment(discipline="baseline"), own) as driver:
        driver._open_instant()  # t=0: the held runs seeded, every queued run enqueued
        driver._send()
        layout = KeyLayout(own)
        for ck, runs in state.queued.items():
            forked = client.zrange(layout.ck_queue(ck), 0, -1, withscores=True)
            assert [(rid, int(score) - SCORE_BASE) for rid, score in forked] == [
                (rid, score - state.read_ms) for rid, score in runs
            ], ck
        for ck in {*state.queued, *state.held}:
            live = server.client().smembers(variant_held(queue, ck))
            assert client.smembers(layout.ck_held(ck)) == live, ck
        assert client.smembers(layout.env_held) == state.env_held
        assert client.zcard(layout.env_queue) == 9


@pytest.mark.slow
def test_whatif_runs_every_discipline_without_writing_the_watched_server(
    server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    watched = server.client()
    busy_queue(watched, prefix)
    before = writes(watched)
    with read_only_user(server, prefix) as url:
        out = tmp_path / "r.json"
        done = ckviz(
            "whatif",
            "--redis-url",
            url,
            "--prefix",
            prefix,
            "--queue",
            QUEUE_NAME,
            "--headless",
            "--hold-ms",
            "50",
            "--out",
            str(out),
        )
        password = parse_url(url)["password"]
    assert done.returncode == 0, done.stderr
    assert writes(watched) == before
    assert password not in done.stderr + done.stdout and "***" in done.stderr  # shown redacted
    text = out.read_text()
    assert '"treatment": "vtime"' in text and '"treatment": "baseline"' in text
    assert '"total_dequeued": 9' in text  # the queued runs; the held ones were served before
    assert "9 runs queued, 3 held; env limit 3; it runs baseline now" in done.stderr


def test_a_fork_never_runs_on_the_watched_server(server: RedisServer, prefix: str) -> None:
    busy_queue(server.client(), prefix)
    done = ckviz(
        "whatif",
        "--redis-url",
        server.url,
        "--own-redis-url",
        server.url,
        "--prefix",
        prefix,
        "--queue",
        QUEUE_NAME,
        "--headless",
    )
    assert done.returncode == 2 and "never runs there" in done.stderr


def test_a_drained_queue_is_one_line(server: RedisServer, client: redis.Redis, prefix: str) -> None:
    producer = busy_queue(server.client(), prefix)
    taken = [(f"run_{i:03d}", f"tenant:{i}") for i in range(3)]
    while taken:  # served and acked to the last run
        for rid, key in taken:
            producer.ack(rid, key)
        taken = producer.dequeue(3, int(time.time() * 1000) + 10_000)
    done = ckviz_here(
        "whatif", "--redis-url", server.url, "--prefix", prefix, "--queue", QUEUE_NAME, "--headless"
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "no CK'd queue under the prefix" in done.stderr


def test_a_vtime_queue_s_tags_and_floor_are_forked_for_vtime(
    server: RedisServer, client: redis.Redis, prefix: str, tmp_path: Path
) -> None:
    busy_queue(server.client(), prefix, vtime=True)
    queue = live_queue(prefix)
    state = read_queue(server.client(), queue, messages=False)
    assert state.vtime and state.floor is not None
    fork = fork_of(state, lambda key: 500)
    assert fork.running == "vtime"
    scenario = load(str(write_fork(tmp_path, fork, "whatif", ["a test's fork"])))
    own = f"{prefix}fork:"
    with open_cell(client, scenario, "seed-a", Treatment(discipline="vtime"), own) as driver:
        layout = KeyLayout(own)
        tags = client.zrange(layout.base_key("ckVtime"), 0, -1, withscores=True)
        assert {m.removeprefix(layout.ck_queue("")[len(own) :]): t for m, t in tags} == state.vtime
        assert float(client.get(layout.base_key("ckVtimeFloor"))) == state.floor
        driver.run()  # every vtime rule checked from the forked start to the end
        assert driver.done and len(driver.ledger.events) == 9


def test_the_burst_factor_and_the_env_s_other_queues_are_forked(
    server: RedisServer, client: redis.Redis, prefix: str, tmp_path: Path
) -> None:
    """SPEC-live 6: the env holds limit x burst slots, a variant no more than the env's limit,
    and the runs the env's other queues hold take its slots in the fork too (for their hold)."""
    watched = server.client()
    mine = Producer(watched, live_queue(prefix), env_limit=4)
    other = Producer(watched, live_queue(prefix, "task/other"))
    mine.open()
    watched.set(mine.queue.env_key(":concurrencyBurstFactor"), "1.5")
    now = int(time.time() * 1000)
    for i in range(3):
        other.enqueue(f"run_o{i}", f"o{i}", now - 5000 + i)
    for i in range(8):
        mine.enqueue(f"run_m{i}", "solo" if i < 6 else f"k{i}", now - 4000 + i)
    assert len(other.dequeue(3, now)) == 3 and len(mine.dequeue(3, now)) == 3
    state = read_queue(watched, mine.queue, messages=False)
    fork = fork_of(state, lambda key: 500)
    # 6 slots (4 x 1.5), a variant at most 4 (the env's limit: the burst is the env's alone)
    assert (fork.env_limit, fork.per_key_cap, fork.held, fork.queued) == (6, 4, 3, 5)
    assert [r[3] for r in fork.rows if r[0] == OTHERS] == ["run_o0", "run_o1", "run_o2"]
    assert any("3 runs of the env's other queues hold slots" in n for n in fork.notes)
    scenario = load(str(write_fork(tmp_path, fork, "whatif", ["a test's fork"])))
    own = f"{prefix}fork:"
    with open_cell(client, scenario, "seed-a", Treatment(discipline="baseline"), own) as driver:
        driver._open_instant()
        driver._send()
        layout = KeyLayout(own)
        assert client.smembers(layout.env_held) == state.env_held  # the env's six slots
        assert client.smembers(layout.ck_held("solo")) == state.held["solo"]
        driver.run()
        assert driver.done and len(driver.ledger.events) == 5


def test_stale_vtime_keys_fork_a_queue_that_runs_the_baseline(
    server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    """A flag rolled back an hour ago leaves ckVtime's keys (their TTL a day): the runs queued
    since say the queue runs the baseline, and the fork compares from there."""
    watched = server.client()
    producer = busy_queue(watched, prefix)
    queue = producer.queue
    members = [str(m) for m in watched.zrange(queue.ck_index, 0, -1)]
    watched.zadd(queue.key(":ckVtime"), {m: n for n, m in enumerate(members)})
    watched.set(queue.key(":ckVtimeFloor"), "0")
    for stale in (":ckVtime", ":ckVtimeFloor"):  # last written by vtime's scripts an hour ago
        watched.pexpire(queue.key(stale), 86_400_000 - 3_600_000)
    state = read_queue(watched, queue, messages=False)
    assert state.vtime is not None and state.flag.discipline == "baseline"
    fork = fork_of(state, lambda key: 500)
    assert fork.running == "baseline"
    assert any(
        n.startswith("it runs the baseline though it has ckVtime keys: run ") for n in fork.notes
    )
