"""The three Lua scripts against a real Redis: tie-breaks, scan window, limits, batches, acks."""

from __future__ import annotations

import pytest
import redis

from ckviz.errors import RedisUnavailable
from ckviz.inputs.workload import run_id
from ckviz.model.arithmetic import rescore_scores
from ckviz.model.queue import PlannedRun
from ckviz.store.keys import MASTER_MEMBER, ck_member
from ckviz.store.runqueue import RunQueue
from tests.functional.servers import redis_server  # noqa: F401  (6.2 and 7)

NOW = 2_000_000_000_000


def queue(
    client: redis.Redis, prefix: str, env_limit: int = 4, per_key: int | None = None
) -> RunQueue:
    q = RunQueue(client, prefix, env_limit, per_key_limit=per_key)
    q.open()
    return q


def enqueue(q: RunQueue, key: str, i: int, ts: int) -> None:
    trip = q.trip()
    trip.enqueue(PlannedRun(key, run_id(key, i), 0, 1), ts)
    trip.send()


def dequeue(q: RunQueue, max_count: int = 1) -> list[str]:
    trip = q.trip()
    slot = trip.dequeue(max_count, NOW)
    return [r.run_id for r in trip.send()[slot]]


def index(q: RunQueue) -> list[tuple[str, float]]:
    trip = q.trip()
    slot = trip.read_index()
    return [(e.key, e.score) for e in trip.send()[slot]]


def test_enqueue_writes_the_reference_layout(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix)
    enqueue(q, "tenant", 0, 1000)
    base = "{org:o-ck}:proj:p-ck:env:e-ck:queue:task/base"
    assert client.zrange(f"{prefix}{base}:ck:tenant", 0, -1, withscores=True) == [
        ("tenant~0#0", 1000.0)
    ]
    assert client.zscore(f"{prefix}{base}:ckIndex", f"{base}:ck:tenant") == 1000.0
    assert client.zscore(f"{prefix}masterQueue:shard:0", MASTER_MEMBER) == 1000.0
    assert client.zcard(f"{prefix}{{org:o-ck}}:env:e-ck") == 1
    assert client.exists(f"{prefix}{{org:o-ck}}:message:tenant~0#0")
    assert all(k.startswith(prefix) for k in client.scan_iter(match=f"{prefix}*"))


def test_score_ties_break_by_member_name(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix, env_limit=100)
    for key in ("b", "a", "c"):
        enqueue(q, key, 0, 1000)
    for i in (2, 10, 1, 0):
        enqueue(q, "a", i + 1, 1000)  # a~0#1, a~0#11, a~0#2, a~0#3 after a~0#0
    got = [dequeue(q)[0] for _ in range(4)]
    # ckIndex ties: a < b < c; within `a`, run ids compare as bytes: #0 < #1 < #11 < #2
    assert got == ["a~0#0", "a~0#1", "a~0#11", "a~0#2"]


def test_served_key_snaps_back_to_its_true_head(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix)
    enqueue(q, "x", 0, 1000)
    enqueue(q, "x", 1, 1005)
    enqueue(q, "y", 0, 1001)
    trip = q.trip()
    trip.rescore(
        [ck_member("y"), ck_member("x")], rescore_scores(2, NOW)
    )  # y best: NOW-2, x: NOW-1
    trip.send()
    assert index(q) == [("y", NOW - 2.0), ("x", NOW - 1.0)]
    assert dequeue(q) == ["y~0#0"]
    # y emptied -> removed; x keeps its rescored value until something rewrites it
    assert index(q) == [("x", NOW - 1.0)]
    assert dequeue(q) == ["x~0#0"]
    assert index(q) == [("x", 1005.0)]


def test_batch_dequeue_takes_one_per_key_and_rescoring_steers_only_the_first(
    client: redis.Redis, prefix: str
) -> None:
    q = queue(client, prefix)
    for i in range(3):
        enqueue(q, "old", i, 1000 + i)
        enqueue(q, "new", i, 2000 + i)
    trip = q.trip()
    trip.rescore([ck_member("new"), ck_member("old")], rescore_scores(2, NOW))
    trip.send()
    taken = dequeue(q, max_count=4)
    # one run per CK queue per call; new (rescored lowest) first, then old
    assert taken == ["new~0#0", "old~0#0"]
    # both entries are back at their true heads: the rescore is gone after one call
    assert index(q) == [("old", 1001.0), ("new", 2001.0)]


def test_ck_queue_at_its_limit_is_skipped(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix, env_limit=4, per_key=1)
    enqueue(q, "a", 0, 1000)
    enqueue(q, "a", 1, 1001)
    enqueue(q, "b", 0, 1500)
    assert dequeue(q) == ["a~0#0"]
    # a holds 1 = its limit: it is skipped untouched (score stays), b is served
    assert dequeue(q) == ["b~0#0"]
    assert index(q) == [("a", 1001.0)]
    assert dequeue(q) == []


def test_scan_window_is_three_times_the_budget(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix, env_limit=10, per_key=1)
    for n, key in enumerate(["k1", "k2", "k3"], start=1):
        enqueue(q, key, 0, 10 * n)
        enqueue(q, key, 1, 10 * n + 1)  # stays ahead of k4 after its key is served
    enqueue(q, "k4", 0, 1000)
    for key in ["k1", "k2", "k3"]:
        assert dequeue(q) == [f"{key}~0#0"]
    # k1..k3 are at their limit and fill the whole window (budget 1 * 3): k4 is never seen
    assert dequeue(q) == []
    # a budget of 2 widens the window to 6 and reaches k4
    assert dequeue(q, max_count=2) == ["k4~0#0"]


def test_env_limit_stops_the_dequeue(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix, env_limit=2)
    for i in range(5):
        enqueue(q, "a", i, 1000 + i)
    assert dequeue(q, max_count=1) == ["a~0#0"]
    enqueue(q, "b", 0, 900)
    assert dequeue(q, max_count=5) == ["b~0#0"]
    assert dequeue(q, max_count=5) == []


def test_ack_rescores_the_key_to_its_true_head_and_frees_the_slot(
    client: redis.Redis, prefix: str
) -> None:
    q = queue(client, prefix, env_limit=1)
    enqueue(q, "a", 0, 1000)
    enqueue(q, "a", 1, 1003)
    assert dequeue(q) == ["a~0#0"]
    trip = q.trip()
    trip.rescore([ck_member("a")], rescore_scores(1, NOW))
    trip.send()
    assert index(q) == [("a", NOW - 1.0)]
    assert dequeue(q) == []  # env full
    trip = q.trip()
    trip.ack("a~0#0", "a")
    trip.send()
    assert index(q) == [("a", 1003.0)]
    assert client.scard(q.keys.env_held) == 0
    assert not client.exists(q.keys.message("a~0#0"))
    assert dequeue(q) == ["a~0#1"]


def test_master_queue_follows_the_lowest_index_score(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix)
    enqueue(q, "a", 0, 1000)
    enqueue(q, "b", 0, 900)
    assert client.zscore(q.keys.master_queue, MASTER_MEMBER) == 900.0
    dequeue(q)
    dequeue(q)
    assert client.zscore(q.keys.master_queue, MASTER_MEMBER) is None


def test_script_flush_is_repaired_by_reloading(client: redis.Redis, prefix: str) -> None:
    q = queue(client, prefix)
    client.script_flush()
    enqueue(q, "a", 0, 1000)  # NOSCRIPT -> reload -> resend
    assert dequeue(q) == ["a~0#0"]


def test_a_script_flush_under_a_written_rescore_is_refused_not_replayed(
    client: redis.Redis, prefix: str
) -> None:
    # The ZADD after the failed enqueue took effect out of its place: resending the tail would
    # run it twice around the enqueue, so the trip is refused in one line instead.
    q = queue(client, prefix)
    enqueue(q, "a", 0, 1000)
    client.script_flush()
    trip = q.trip()
    trip.enqueue(PlannedRun("b", run_id("b", 0), 0, 10), 1001)
    trip.rescore([ck_member("a")], [5])
    with pytest.raises(RedisUnavailable, match=r"SCRIPT FLUSH or a restart.*ZADD"):
        trip.send()


def _rescore_trip(q: RunQueue) -> tuple[list, list]:
    trip = q.trip()
    trip.enqueue(PlannedRun("b", run_id("b", 0), 0, 10), 900)
    trip.read_index()
    trip.rescore([ck_member("a"), ck_member("b")], [7, 5])
    slot = trip.dequeue(1, NOW)
    taken = [r.run_id for r in trip.send()[slot]]
    return taken, q.client.zrange(q.keys.ck_index, 0, -1, withscores=True)


def test_a_rescore_that_ran_ahead_of_flushed_scripts_is_undone_then_replayed(
    client: redis.Redis, prefix: str
) -> None:
    clean, flushed = queue(client, prefix + "clean:"), queue(client, prefix + "flushed:")
    for q in (clean, flushed):
        enqueue(q, "a", 0, 1000)
        enqueue(q, "a", 1, 1001)
    expected = _rescore_trip(clean)
    client.script_flush()
    assert _rescore_trip(flushed) == expected == (["b~0#0"], [(ck_member("a"), 7.0)])
