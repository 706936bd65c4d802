"""Reading a live queue on the real layout (issue 34 items 1, 2, 5): the producer runs traffic,
the watcher finds and reads the queue as a read-only ACL user, and the order it says the next
dequeue takes is the order the next real dequeue call then takes, on Redis 6.2 and 7, flag
off (baseline) and on (vtime)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
import redis

from ckviz.live import discover
from ckviz.live.discover import find_queues, matching
from ckviz.live.names import LiveQueue, queue_of_index
from ckviz.live.producer import Producer
from ckviz.live.reading import read_picture
from ckviz.store.server import RedisServer
from tests.functional.live_support import (
    Traffic,
    live_queue,
    read_only_user,
    server_now_ms,
)
from tests.functional.servers import redis_server  # noqa: F401  (both servers)

KEYS = ["acme:eu", "acme:us", "beta", "gamma/1", "delta", "eps"]


@pytest.fixture
def reader(redis_server: RedisServer, prefix: str) -> Iterator[redis.Redis]:  # noqa: F811
    """A client logged in as a user that may only read keys under the test's prefix."""
    with read_only_user(redis_server, prefix) as url:
        client = redis.Redis.from_url(url, decode_responses=True)
        yield client
        client.close()


def _traffic(client: redis.Redis, queue: LiveQueue, vtime: bool, env_limit: int = 8) -> Traffic:
    producer = Producer(client, queue, vtime=vtime, env_limit=env_limit, queue_limit=2)
    producer.open()
    return Traffic(producer, [])


@pytest.mark.parametrize("vtime", [False, True], ids=["baseline", "vtime"])
def test_next_order_is_the_order_the_next_dequeue_takes(
    client: redis.Redis, reader: redis.Redis, prefix: str, vtime: bool
) -> None:
    queue = live_queue(prefix)
    traffic = _traffic(client, queue, vtime)
    start = server_now_ms(client) - 60_000
    cycle = itertools.cycle(KEYS)
    compared = 0
    for round_no in range(12):
        arrivals = [next(cycle) for _ in range(round_no % 4 + 2)] + ["acme:eu"] * (round_no % 3)
        traffic.arrive(arrivals, start + 1000 * round_no)
        if round_no % 2:
            traffic.finish(2)
        picture = read_picture(reader, queue, batch=3)
        assert picture.torn == ()  # nobody wrote between the reads
        assert picture.discipline == ("vtime" if vtime else "baseline")
        expected = [(p.run_id, p.key) for p in picture.next_order if p.fate == "served"]
        taken = traffic.serve(3, int(picture.read_at_ms))
        assert taken == expected, picture.next_order
        compared += len(taken)
    assert compared > 12  # the calls took runs, not only nothing


@pytest.mark.parametrize("vtime", [False, True], ids=["baseline", "vtime"])
def test_an_order_that_passes_over_many_keys_at_their_limit_reads_as_far_as_it_goes(
    client: redis.Redis, reader: redis.Redis, prefix: str, vtime: bool
) -> None:
    """Eighty keys at their limit ahead of the rest: the next order walks past as many as the
    call looks at (the baseline's window of 30; vtime's 60 tags, which cost its window
    nothing), reading further as it goes, and is still what the next call takes: nothing."""
    queue = live_queue(prefix)
    producer = Producer(client, queue, vtime=vtime, env_limit=200, queue_limit=1)
    producer.open()
    traffic = Traffic(producer, [])
    now = server_now_ms(client)
    gated = [f"busy:{n:02d}" for n in range(80)]
    traffic.arrive(gated + gated, now - 60_000)
    assert len(traffic.serve(80, now)) == 80  # each busy key holds 1: its limit
    traffic.arrive([f"new:{n}" for n in range(5)], now - 1000)
    picture = read_picture(reader, queue, batch=10)
    fates = [p.fate for p in picture.next_order]
    assert fates == ["limit"] * (60 if vtime else 30)
    assert picture.cost.round_trips > 4  # more than the first reads: the order asked for more
    assert traffic.serve(10, int(picture.read_at_ms)) == []


def test_a_variant_at_its_limit_is_passed_over_and_said_why(
    client: redis.Redis, reader: redis.Redis, prefix: str
) -> None:
    queue = live_queue(prefix)
    traffic = _traffic(client, queue, vtime=False)
    now = server_now_ms(client)
    traffic.arrive(["acme:eu"] * 4 + ["beta"], now - 5000)
    traffic.serve(1, now)
    traffic.serve(1, now)  # acme:eu holds 2, its limit
    picture = read_picture(reader, queue, batch=2)
    first = picture.next_order[0]
    assert (first.key, first.fate) == ("acme:eu", "limit")
    assert "holds 2 of 2" in first.why
    assert [(p.key, p.fate) for p in picture.next_order[1:]] == [("beta", "served")]
    assert picture.decision().winner is not None


def test_a_full_env_takes_nothing_and_the_picture_says_so(
    client: redis.Redis, reader: redis.Redis, prefix: str
) -> None:
    queue = live_queue(prefix)
    producer = Producer(client, queue, env_limit=2)
    producer.open()
    traffic = Traffic(producer, [])
    now = server_now_ms(client)
    traffic.arrive(KEYS, now - 1000)
    traffic.serve(5, now)
    picture = read_picture(reader, queue)
    assert picture.next_order == ()
    assert "the env is full (2 of 2 held)" in picture.order_note
    assert producer.dequeue(5, now) == []


def test_the_picture_holds_the_queue_as_written(
    client: redis.Redis, reader: redis.Redis, prefix: str
) -> None:
    queue = live_queue(prefix)
    traffic = _traffic(client, queue, vtime=True)
    now = server_now_ms(client)
    traffic.arrive(["acme:eu", "acme:eu", "beta", "gamma/1"], now - 2000)
    traffic.serve(2, now)
    picture = read_picture(reader, queue)
    rows = {row.key: row for row in picture.variants}
    assert set(rows) == {"acme:eu", "gamma/1"}  # beta drained when served
    assert (rows["acme:eu"].depth, rows["acme:eu"].held) == (1, 1)
    assert rows["acme:eu"].head_run == "run_000002"
    assert picture.index_total == 2
    assert (picture.env_held, picture.queue_held) == (2, 2)
    assert (picture.limits.env_limit, picture.limits.queue_limit) == (8, 2)
    assert picture.limits.assumed == ("burst factor 1 (its key is unset)",)
    assert picture.vtime is not None and picture.vtime.floor == 0.0
    assert dict(picture.vtime.idle) == {"beta": 1.0}
    assert picture.discipline == "vtime" and "ckVtime last written" in picture.discipline_from
    # the first refresh measured (INFO commandstats around it: one trip more), the next priced
    assert picture.cost.measured and picture.cost.server_us > 0
    assert picture.cost.round_trips == 4
    again = read_picture(reader, queue).cost
    assert (again.measured_ago, again.round_trips) == (1, 3)
    assert again.commands == picture.cost.commands - 1  # the first INFO commandstats
    assert again.server_us > 0
    assert picture.to_json()["queue"]["name"] == "task/send-email:v2"


def test_discover_finds_each_queue_and_parses_its_ids(
    client: redis.Redis, reader: redis.Redis, prefix: str
) -> None:
    names = ["task/send-email:v2", "task/a/b:c:d"]
    for name in names:
        traffic = _traffic(client, live_queue(prefix, name), vtime=name.endswith("d"))
        traffic.arrive(["x:1", "x:1", "y"], server_now_ms(client) - 1000)
    client.set(f"{prefix}not-a-queue:ckIndex", "1")  # under the prefix, not the layout
    found = find_queues([("node", reader)], prefix)
    assert [f.queue.name for f in found] == sorted(names)
    assert [(f.keys, f.depth, f.vtime) for f in found] == [(2, 3, True), (2, 3, False)]
    assert matching(found, "send-email")[0].queue.name == "task/send-email:v2"
    assert queue_of_index(found[0].queue.ck_index, prefix) == found[0].queue
    deeper = live_queue(prefix + "tenant:")  # a prefix longer than the one given
    assert queue_of_index(deeper.ck_index, prefix) == deeper


@pytest.mark.parametrize("vtime", [False, True], ids=["baseline", "vtime"])
def test_next_order_holds_over_a_seeded_mixed_workload(
    client: redis.Redis, reader: redis.Redis, prefix: str, vtime: bool
) -> None:
    """Many keys, delayed runs (a future score), batches of 1-5, a full env at times: every
    call's picks, run for run, as the watcher said."""
    rng = random.Random(34)
    queue = live_queue(prefix)
    traffic = _traffic(client, queue, vtime, env_limit=6)
    keys = [f"tenant:{n}" for n in range(15)]
    served = 0
    for _ in range(40):
        now = server_now_ms(client)
        for _ in range(rng.randint(0, 6)):
            delay = 600_000 if rng.random() < 0.15 else -rng.randint(1, 500)
            traffic.arrive([rng.choice(keys)], now + delay)
        traffic.finish(rng.randint(0, 3))
        batch = rng.randint(1, 5)
        picture = read_picture(reader, queue, batch=batch)
        expected = [(p.run_id, p.key) for p in picture.next_order if p.fate == "served"]
        assert traffic.serve(batch, int(picture.read_at_ms)) == expected, picture.next_order
        served += len(expected)
    assert served > 40


@pytest.mark.parametrize("vtime", [False, True], ids=["baseline", "vtime"])
def test_a_head_past_its_ttl_is_dropped_not_served_as_the_picture_says(
    client: redis.Redis, reader: redis.Redis, prefix: str, vtime: bool
) -> None:
    queue = live_queue(prefix)
    traffic = _traffic(client, queue, vtime)
    now = server_now_ms(client)
    traffic.producer.enqueue("run_old", "acme:eu", now - 3000, ttl_expires_at=now - 1000)
    traffic.producer.enqueue("run_ok", "acme:eu", now - 2000, ttl_expires_at=now + 600_000)
    traffic.arrive(["beta"], now - 2500)
    picture = read_picture(reader, queue, batch=1)
    order = [(p.key, p.fate, p.run_id) for p in picture.next_order]
    assert order[:2] == [("acme:eu", "expired", None), ("beta", "served", "run_000001")]
    assert "TTL ran out" in picture.next_order[0].why
    assert traffic.serve(1, int(picture.read_at_ms)) == [("run_000001", "beta")]
    rows = {row.key: row for row in picture.variants}
    assert rows["acme:eu"].head_attempt == 0 and rows["acme:eu"].head_expires_ms == now - 1000


def test_with_many_queues_each_counts_fewer_variants_and_says_so(
    client: redis.Redis, reader: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("task/a", "task/b"):
        _traffic(client, live_queue(prefix, name), vtime=False).arrive(
            ["x", "x", "y"], server_now_ms(client) - 1000
        )
    monkeypatch.setattr(discover, "DEPTH_READS", 2)  # one variant each
    found = find_queues([("node", reader)], prefix)
    assert [(f.keys, f.depth, f.depth_bounded) for f in found] == [(2, 2, True), (2, 2, True)]
    assert found[0].line(0).count("queued 2+") == 1
