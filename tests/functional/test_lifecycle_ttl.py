"""TTL expiry and future heads on a real Redis (SPEC-lifecycle 4.1-4.3 and 5, flag off): the
dequeue's serve and its expired heads, the sweep, and heads scheduled in the future."""

from __future__ import annotations

import json
import time

import redis

from ckviz.store.keys import ck_member
from tests.functional.lifecycle_support import NOW, Lanes
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)


def member(key: str, run_id: str) -> str:
    return f"{ck_member(key)}|{run_id}|o-ck"


# the dequeue meets TTLs


def test_serving_a_run_removes_its_ttl_entry(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000, ttl_expires_at=NOW + 10)
    lanes.enqueue("b", "b1", 1001, ttl_expires_at=NOW + 20)
    assert lanes.dequeue() == ["a1"]
    assert lanes.ttl_entries() == [(member("b", "b1"), NOW + 20.0)]


def test_an_expired_head_is_dropped_not_served(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000, ttl_expires_at=NOW)  # expires at now: expired
    lanes.enqueue("a", "a2", 1001)
    client.delete(lanes.keys.ttl_queue)  # as if an earlier dequeue had removed the entry
    assert lanes.dequeue() == []
    assert lanes.queued("a") == [("a2", 1001.0)]
    assert lanes.env_queued() == [("a2", 1001.0)]
    assert lanes.slots("a") == [set(), set(), set(), set()]  # never held
    assert lanes.counter("lengthCounter") == 1
    assert lanes.ttl_entries() == [(member("a", "a1"), float(NOW))]  # recreated for the sweep
    assert lanes.message("a1") is not None  # kept for the TTL consumer
    assert lanes.index_score("a") == 1001.0  # reindexed to the next head
    assert lanes.dequeue() == ["a2"]


def test_a_variant_of_expired_runs_sheds_one_per_call(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix, env_limit=10)
    for i in range(3):
        lanes.enqueue("a", f"a{i}", 1000 + i, ttl_expires_at=NOW - 1)
    lanes.enqueue("b", "b0", 2000)
    for left in (2, 1, 0):
        assert lanes.dequeue(max_count=5) == (["b0"] if left == 2 else [])
        assert len(lanes.queued("a")) == left
    assert lanes.index_score("a") is None  # emptied: out of ckIndex
    assert lanes.master_score() is None
    # 4 counted in; the 3 drops and b0's serve counted out
    assert lanes.counter("lengthCounter") == 0


def test_the_length_counter_is_floored_on_a_drop(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000, ttl_expires_at=NOW - 1)
    client.set(lanes.keys.length_counter, 0)
    assert lanes.dequeue() == []
    assert lanes.counter("lengthCounter") == 0


def test_a_run_not_expired_yet_is_served(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000, ttl_expires_at=NOW + 1)
    assert lanes.dequeue() == ["a1"]
    assert lanes.ttl_entries() == []


def test_without_a_ttl_system_an_expired_run_is_just_dropped(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix, ttl_system=False)
    lanes.enqueue("a", "a1", 1000, ttl_expires_at=NOW - 1)
    assert lanes.dequeue() == []
    assert lanes.queued("a") == [] and lanes.ttl_entries() == []
    assert lanes.counter("lengthCounter") == 0
    assert lanes.message("a1") is not None


# future heads


def test_a_future_headed_variant_is_never_a_candidate(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", NOW + 5000)
    assert lanes.dequeue() == []
    assert lanes.index_score("a") == NOW + 5000.0
    assert lanes.master_score() == NOW + 5000.0  # the lowest score, ready or not
    lanes.enqueue("b", "b1", NOW + 10)
    assert lanes.dequeue(max_count=4) == []
    assert lanes.dequeue(max_count=4, now=NOW + 5000) == ["b1", "a1"]  # oldest head first


def test_a_ready_run_behind_a_future_head_in_its_variant_is_served(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000)
    lanes.enqueue("a", "a2", NOW + 5000)
    assert lanes.dequeue() == ["a1"]
    assert lanes.index_score("a") == NOW + 5000.0
    assert lanes.dequeue() == []


# the sweep


def test_the_sweep_expires_due_runs_everywhere(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000, ttl_expires_at=5000)
    lanes.enqueue("a", "a2", 1001, ttl_expires_at=9000)
    lanes.enqueue("b", "b1", 900, ttl_expires_at=5000)
    start = int(time.time() * 1000)
    assert lanes.expire(now=6000) == ["a1", "b1"]  # ties by bytes
    assert lanes.ttl_entries() == [(member("a", "a2"), 9000.0)]
    assert lanes.message("a1") is None and lanes.message("b1") is None
    assert lanes.queued("a") == [("a2", 1001.0)] and lanes.queued("b") == []
    assert lanes.env_queued() == [("a2", 1001.0)]
    assert lanes.counter("lengthCounter") == 1
    assert lanes.index_score("a") == 1001.0 and lanes.index_score("b") is None
    assert lanes.master_score() == 900.0  # stale: the sweep never remasters
    work = client.zrange(lanes.keys.ttl_jobs, 0, -1, withscores=True)
    assert [run for run, _ in work] == ["a1", "b1"]
    assert all(start <= score <= time.time() * 1000 for _, score in work)
    job = json.loads(client.hget(lanes.keys.ttl_job_items, "b1") or "{}")
    assert job == {
        "job": "expireTtlRun",
        "item": {"runId": "b1", "orgId": "o-ck", "queueKey": ck_member("b")},
        "visibilityTimeoutMs": 30_000,
        "attempt": 0,
    }


def test_the_sweep_releases_a_held_run_and_floors_the_counters(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000)
    assert lanes.dequeue() == ["a1"]
    lanes.pull("a", "a1")
    client.zadd(lanes.keys.ttl_queue, {member("a", "a1"): 10})  # served runs keep no entry
    client.set(lanes.keys.length_counter, 0)
    assert lanes.expire(now=10) == ["a1"]
    assert lanes.slots("a") == [set(), set(), set(), set()]
    assert lanes.counter("runningCounter") == 0
    assert lanes.counter("lengthCounter") == 0  # the run was not queued: no DECR


def test_the_sweep_skips_malformed_members_and_never_removes_them(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000, ttl_expires_at=50)
    client.zadd(lanes.keys.ttl_queue, {"no-bars": 10, "one|bar": 20})
    assert lanes.expire(now=100) == ["a1"]
    assert lanes.ttl_entries() == [("no-bars", 10.0), ("one|bar", 20.0)]
    assert lanes.expire(now=100) == []


def test_the_sweep_takes_at_most_a_batch(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix, env_limit=10)
    for i in range(5):
        lanes.enqueue("a", f"a{i}", 1000 + i, ttl_expires_at=50 + i)
    assert lanes.expire(now=100, batch=2) == ["a0", "a1"]
    assert lanes.expire(now=51, batch=5) == []
    assert len(lanes.ttl_entries()) == 3
