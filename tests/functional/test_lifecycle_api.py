"""The lifecycle's client API as the engine calls it, through a run queue's door (baseline):
`Trip.enqueue` with a TTL or a fast-path offer, `nack` / `dead_letter` from `nack_step`, and
`expire_ttl`; every reply decoded."""

from __future__ import annotations

import json

import redis

from ckviz.model.backoff import laid_over_core
from ckviz.model.queue import PlannedRun
from ckviz.store.keys import ck_member
from ckviz.store.lifecycle import ttl_member
from ckviz.store.lifecycle.client import add_nack, fast_path_offer, nack_step
from ckviz.store.runqueue import RunQueue
from ckviz.store.scripts import LIFECYCLE, LUA_ORDER, RUN_QUEUE
from tests.functional.lifecycle_support import NOW

RETRY = laid_over_core(max_attempts=2, randomize=False)


def opened(client: redis.Redis, prefix: str, ttl_system: bool = True) -> RunQueue:
    queue = RunQueue(client, prefix, 4, ttl_system=ttl_system)
    queue.open()
    return queue


def test_a_door_names_the_lifecycle_scripts_and_the_queue_loads_them() -> None:
    door = LUA_ORDER
    assert (door.nack, door.dead_letter) == (LIFECYCLE["nack"], LIFECYCLE["dead_letter"])
    assert (door.enqueue_ttl, door.expire_ttl) == (LIFECYCLE["enqueue"], LIFECYCLE["expire_ttl"])
    loaded = {s.sha for s in RunQueue(redis.Redis(), "unused:", 1).scripts}
    assert {s.sha for s in (*RUN_QUEUE.values(), *LIFECYCLE.values())} == loaded


def test_an_enqueue_without_a_ttl_or_an_offer_runs_the_doors_enqueue(
    client: redis.Redis, prefix: str
) -> None:
    queue = opened(client, prefix)
    trip = queue.trip()
    slot = trip.enqueue(PlannedRun("a", "a1", 0, 0), 1000)
    assert trip._commands[slot][0][1] == queue.door.enqueue.sha
    assert trip.send()[slot] is False
    assert client.get(queue.lifecycle.length_counter) == "1"  # counted in, as every enqueue is
    assert json.loads(client.get(queue.keys.message("a1")) or "{}") == {
        "runId": "a1",
        "concurrencyKey": "a",
        "queue": "task/base",
        "timestamp": 1000,
    }


def test_an_enqueue_with_a_ttl_is_swept_or_served_once(client: redis.Redis, prefix: str) -> None:
    queue = opened(client, prefix)
    trip = queue.trip()
    a = trip.enqueue(PlannedRun("a", "a1", 0, 0), 1000, ttl_expires_at=NOW + 5)
    trip.enqueue(PlannedRun("b", "b1", 0, 0), 1001, ttl_expires_at=NOW + 5)
    assert trip.send()[a:] == [False, False]
    message = json.loads(client.get(queue.keys.message("a1")) or "{}")
    assert message["ttlExpiresAt"] == NOW + 5 and message["orgId"] == "o-ck"
    trip = queue.trip()
    served = trip.dequeue(1, NOW)
    assert [r.run_id for r in trip.send()[served]] == ["a1"]  # its TTL entry goes with it
    assert client.zrange(queue.lifecycle.ttl_queue, 0, -1) == [ttl_member("b", "b1")]
    trip = queue.trip()
    first = trip.expire_ttl(NOW + 5)
    trip.expire_ttl(NOW + 5)  # nothing expires twice
    assert trip.send()[first:] == [["b1"], []]


def test_without_a_ttl_system_no_ttl_entry_is_written(client: redis.Redis, prefix: str) -> None:
    queue = opened(client, prefix, ttl_system=False)
    trip = queue.trip()
    trip.enqueue(PlannedRun("a", "a1", 0, 0), 1000, ttl_expires_at=NOW - 1)
    slot = trip.dequeue(1, NOW)
    assert trip.send()[slot] == []  # expired: dropped
    assert client.exists(queue.lifecycle.ttl_queue) == 0  # and not handed to a sweep


def test_the_fast_path_offer_reply_says_whether_it_was_taken(
    client: redis.Redis, prefix: str
) -> None:
    queue = opened(client, prefix)
    trip = queue.trip()
    offer = fast_path_offer(True, 1000, NOW)
    first = trip.enqueue(PlannedRun("a", "a1", 0, 0), 1000, fast_path_at=offer)
    trip.enqueue(PlannedRun("b", "b1", 0, 0), 1000)
    second = trip.enqueue(PlannedRun("b", "b2", 0, 0), 1001, fast_path_at=offer)
    replies = trip.send()
    assert (replies[first], replies[second]) == (True, False)  # b has a ready run
    assert client.smembers(queue.keys.ck_held("a")) == {"a1"}
    assert client.zscore(queue.keys.ck_index, ck_member("a")) is None


def test_a_nack_step_requeues_then_dead_letters_through_the_door(
    client: redis.Redis, prefix: str
) -> None:
    queue = opened(client, prefix)
    trip = queue.trip()
    trip.enqueue(PlannedRun("a", "a1", 0, 0), 1000, ttl_expires_at=NOW + 60_000)
    trip.dequeue(1, NOW)
    trip.send()
    payload = client.get(queue.keys.message("a1")) or ""
    step = nack_step(payload, NOW, RETRY.max_attempts, RETRY)
    trip = queue.trip()
    add_nack(trip, "a", "a1", step)
    trip.send()
    assert client.zrange(queue.keys.ck_queue("a"), 0, -1, withscores=True) == [("a1", NOW + 1000.0)]
    retried = client.get(queue.keys.message("a1")) or ""
    assert json.loads(retried)["attempt"] == 1 and "ttlExpiresAt" not in json.loads(retried)
    trip = queue.trip()
    trip.dequeue(1, NOW + 1000)
    trip.send()
    last = nack_step(retried, NOW + 1000, RETRY.max_attempts, RETRY)
    assert last.dead_letter
    trip = queue.trip()
    add_nack(trip, "a", "a1", last)
    trip.send()
    assert client.zrange(queue.lifecycle.dead_letter, 0, -1) == ["a1"]
    assert client.get(queue.keys.message("a1")) == retried  # the pre-nack payload
    assert client.smembers(queue.keys.ck_held("a")) == set()
