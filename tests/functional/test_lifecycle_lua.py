"""The flag-off lifecycle scripts on a real Redis (SPEC-lifecycle 2.3, 3, 4.1, 6): nack,
dead-letter, enqueue with a TTL, and the fast path."""

from __future__ import annotations

import time

import redis

from ckviz.store.keys import MASTER_MEMBER, ck_member
from tests.functional.lifecycle_support import NOW, Lanes
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)


def served(lanes: Lanes, key: str, run_id: str, ts: int) -> None:
    """Enqueue `run_id` alone at `ts`, serve it, and have a worker pull it."""
    lanes.enqueue(key, run_id, ts)
    assert lanes.dequeue() == [run_id]
    lanes.pull(key, run_id)


def nack(lanes: Lanes, key: str, run_id: str, score: int, attempt: int = 1) -> None:
    lanes.nack(key, run_id, score, attempt)


# nack


def test_nack_frees_the_slots_at_once_and_requeues_at_the_retry_score(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    served(lanes, "a", "a1", 1000)
    nack(lanes, "a", "a1", NOW + 5000, attempt=1)
    assert lanes.slots("a") == [set(), set(), set(), set()]
    assert lanes.counter("runningCounter") == 0
    assert lanes.queued("a") == [("a1", NOW + 5000.0)]
    assert lanes.env_queued() == [("a1", NOW + 5000.0)]
    assert lanes.index_score("a") == NOW + 5000.0  # a future head
    assert lanes.master_score() == NOW + 5000.0
    message = lanes.message("a1")
    assert message is not None and message["attempt"] == 1
    assert message["timestamp"] == 1000  # the retry time lives only in the score


def test_nack_counts_a_new_run_once_after_a_lazy_init(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    served(lanes, "a", "a1", 1000)
    lanes.enqueue("a", "a2", 1001)
    lanes.enqueue("b", "b1", 1001)
    lanes.enqueue("b", "b2", 1002)
    client.delete(lanes.keys.length_counter)
    nack(lanes, "a", "a1", NOW)
    # lazy-init before the ZADD counts a2, b1 and b2, then the INCR adds a1 (after the ZADD,
    # the init would count a1 too and the INCR count it again)
    assert lanes.counter("lengthCounter") == 4
    assert client.ttl(lanes.keys.length_counter) > 0


def test_nack_of_a_still_queued_run_rescores_it_without_counting_it(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000)
    lanes.enqueue("a", "a2", 2000)
    assert lanes.counter("lengthCounter") == 2
    nack(lanes, "a", "a1", 3000)
    assert lanes.counter("lengthCounter") == 2
    assert lanes.queued("a") == [("a2", 2000.0), ("a1", 3000.0)]
    assert lanes.index_score("a") == 2000.0


def test_nack_points_ck_index_at_the_lower_of_old_head_and_retry(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    served(lanes, "a", "a1", 1000)
    lanes.enqueue("a", "a2", 5000)
    nack(lanes, "a", "a1", 9000)
    assert lanes.index_score("a") == 5000.0  # the old head stays ahead
    served(lanes, "b", "b1", 1000)
    lanes.enqueue("b", "b2", 5000)
    nack(lanes, "b", "b1", 3000)
    assert lanes.index_score("b") == 3000.0  # the retry is the new head
    assert lanes.master_score() == 3000.0


def test_nack_floors_the_running_counter_and_drops_a_legacy_master_entry(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    served(lanes, "a", "a1", 1000)
    client.set(lanes.keys.running_counter, 0)  # already 0: a DECR would make it -1
    client.zadd(lanes.q.keys.master_queue, {ck_member("a"): 1})
    nack(lanes, "a", "a1", NOW)
    assert lanes.counter("runningCounter") == 0
    assert client.zrange(lanes.q.keys.master_queue, 0, -1) == [MASTER_MEMBER]


def test_nack_of_a_run_never_pulled_leaves_the_running_counter(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000)
    assert lanes.dequeue() == ["a1"]
    client.set(lanes.keys.running_counter, 4)  # other runs' count
    nack(lanes, "a", "a1", NOW)
    assert lanes.counter("runningCounter") == 4  # a1 was not in currentDequeued


# dead-letter


def test_dead_letter_keeps_the_pre_nack_payload_and_files_the_run(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    served(lanes, "a", "a1", 1000)
    nack(lanes, "a", "a1", NOW, attempt=1)  # first failure: back in the queue
    before = client.get(lanes.q.keys.message("a1"))
    assert lanes.dequeue() == ["a1"]
    lanes.pull("a", "a1")
    start = int(time.time())
    lanes.dead_letter("a", "a1")
    dead = client.zrange(lanes.keys.dead_letter, 0, -1, withscores=True)
    assert [run for run, _ in dead] == ["a1"]
    assert start <= dead[0][1] <= int(time.time())  # Redis TIME in seconds, not ms
    assert client.get(lanes.q.keys.message("a1")) == before
    assert lanes.slots("a") == [set(), set(), set(), set()]
    assert lanes.counter("runningCounter") == 0
    assert lanes.index_score("a") is None
    assert lanes.master_score() is None


def test_dead_letter_decrements_the_length_only_for_a_queued_run(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a1", 1000)
    lanes.enqueue("a", "a2", 2000)
    lanes.enqueue("b", "b1", 1500)
    assert lanes.counter("lengthCounter") == 3
    lanes.dead_letter("a", "a1")  # still queued: counted down
    assert lanes.counter("lengthCounter") == 2
    assert lanes.queued("a") == [("a2", 2000.0)]
    assert lanes.env_queued() == [("b1", 1500.0), ("a2", 2000.0)]
    assert lanes.index_score("a") == 2000.0
    assert lanes.master_score() == 1500.0
    lanes.dead_letter("a", "a9")  # not queued: no count
    assert lanes.counter("lengthCounter") == 2
    client.set(lanes.keys.length_counter, 0)
    lanes.dead_letter("a", "a2")
    assert lanes.counter("lengthCounter") == 0  # floored


# enqueue with a TTL


def test_enqueue_with_a_ttl_writes_the_ttl_entry_and_keeps_it_in_the_payload(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    assert lanes.enqueue("a", "a1", 1000, ttl_expires_at=7000) == 0
    member = f"{ck_member('a')}|a1|o-ck"
    assert lanes.ttl_entries() == [(member, 7000.0)]
    message = lanes.message("a1")
    assert message is not None and message["ttlExpiresAt"] == 7000
    assert lanes.counter("lengthCounter") == 1  # lazy-init (0) before the INCR
    assert lanes.index_score("a") == 1000.0 and lanes.master_score() == 1000.0


def test_no_ttl_entry_without_a_ttl_or_a_ttl_system(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix, ttl_system=False)
    lanes.enqueue("a", "a1", 1000)
    lanes.enqueue("a", "a2", 1000, ttl_expires_at=7000)
    assert lanes.ttl_entries() == []
    assert lanes.counter("lengthCounter") == 2


def test_enqueue_clears_the_run_from_all_four_slot_sets(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    for name in lanes.keys.slots("a"):
        client.sadd(name, "a1")
    lanes.enqueue("a", "a1", 1000)
    assert lanes.slots("a") == [set(), set(), set(), set()]


# fast path


def fast(lanes: Lanes, key: str, run_id: str, ts: int = 1000) -> object:
    return lanes.enqueue(key, run_id, ts, fast_path=True, now=NOW, ttl_expires_at=NOW + 1)


def test_the_fast_path_holds_the_run_and_skips_every_queue(
    client: redis.Redis, prefix: str
) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("other", "o1", 500)  # another key's backlog does not block it
    assert fast(lanes, "a", "a1") == 1
    assert client.smembers(lanes.q.keys.ck_held("a")) == {"a1"}
    assert "a1" in client.smembers(lanes.q.keys.env_held)
    assert client.lrange(lanes.keys.worker_queue, 0, -1) == ["{org:o-ck}:message:a1"]
    assert lanes.message("a1") is not None
    assert lanes.queued("a") == [] and lanes.index_score("a") is None
    assert lanes.ttl_entries() == []
    assert lanes.counter("lengthCounter") == 1  # o1 only
    assert lanes.master_score() == 500.0


def test_the_fast_path_needs_no_ready_run_in_the_variant(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    lanes.enqueue("a", "a0", NOW + 60_000)  # a future run is not ready
    assert fast(lanes, "a", "a1") == 1
    lanes.enqueue("b", "b0", 1000)
    assert fast(lanes, "b", "b1") == 0  # b has a ready run: the slow path
    assert [run for run, _ in lanes.queued("b")] == ["b0", "b1"]
    assert lanes.ttl_entries() == [(f"{ck_member('b')}|b1|o-ck", NOW + 1.0)]


def test_the_fast_path_needs_a_free_env_slot(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix, env_limit=2)
    client.sadd(lanes.q.keys.env_held, "x1")
    assert fast(lanes, "a", "a1") == 1  # 1 < 2
    assert fast(lanes, "b", "b1") == 0  # 2 held: full
    assert lanes.queued("b") == [("b1", 1000.0)]


def test_the_fast_path_needs_a_free_variant_slot(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix, env_limit=10)
    client.set(lanes.q.keys.queue_limit, 1)
    assert fast(lanes, "a", "a1") == 1
    assert fast(lanes, "a", "a2") == 0  # a holds 1 of its 1
    assert fast(lanes, "b", "b1") == 1


def test_the_fast_path_is_taken_only_when_offered(client: redis.Redis, prefix: str) -> None:
    lanes = Lanes(client, prefix)
    assert lanes.enqueue("a", "a1", 1000, now=NOW) == 0
    assert lanes.queued("a") == [("a1", 1000.0)]
    assert client.llen(lanes.keys.worker_queue) == 0
