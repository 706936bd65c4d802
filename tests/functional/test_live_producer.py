"""The producer writes the real layout (issue 34 item 5, SPEC-live 1): after traffic, every
key under its prefix is one the table lists, of the type it lists, and the message holds every
field the reference's does; both flag states; and a watcher reading while the producer runs
traffic from another thread is never thrown by keys that change or vanish under it."""

from __future__ import annotations

import json
import re
import threading

import pytest
import redis

from ckviz.live.producer import SHARDS, Producer, shard_of
from ckviz.live.reading import read_picture
from ckviz.store.server import RedisServer
from tests.functional.live_support import (
    ENV,
    Traffic,
    live_queue,
    read_only_user,
    server_now_ms,
)
from tests.functional.servers import redis_server  # noqa: F401  (both servers)

# SPEC-live 1's table: the key after the prefix -> its type (Q the base queue, V a variant)
Q = re.escape("{org:cm4org00001}:proj:cm4proj0001:env:cm4env00001:queue:task/send-email:v2")
ENV_PATH = re.escape("{org:cm4org00001}:proj:cm4proj0001:env:cm4env00001")
LAYOUT = {
    r"masterQueue:shard:\d+": "zset",
    re.escape("{org:cm4org00001}:env:cm4env00001"): "zset",
    re.escape("{org:cm4org00001}:message:") + r"run_\d+": "string",
    Q + r":ck:.+:current(Concurrency|Dequeued)": "set",
    Q + r":ck:.+": "zset",
    Q + r":ckIndex": "zset",
    Q + r":ckVtime": "zset",
    Q + r":ckVtimeFloor": "string",
    Q + r":ckVtimeIdle": "zset",
    Q + r":(lengthCounter|runningCounter|concurrency)": "string",
    Q + r":current(Concurrency|Dequeued)": "set",
    ENV_PATH + r":current(Concurrency|Dequeued)": "set",
    ENV_PATH + r":concurrency": "string",
    r"workerQueue:main": "list",
    r"ttl:shard:\d+": "zset",
}
FIELDS = {
    "runId",
    "queue",
    "concurrencyKey",
    "timestamp",
    "attempt",
    "orgId",
    "environmentId",
    "taskIdentifier",
    "workerQueue",
    "version",
}


def kind_of(key: str) -> str | None:
    """The type SPEC-live 1 lists for `key` (after the prefix); None: not in the table."""
    for pattern, kind in LAYOUT.items():
        if re.fullmatch(pattern, key, re.S):
            return kind
    return None


@pytest.mark.parametrize("vtime", [False, True], ids=["flag-off", "flag-on"])
def test_every_key_written_is_one_the_layout_lists(
    client: redis.Redis, prefix: str, vtime: bool
) -> None:
    queue = live_queue(prefix)
    producer = Producer(client, queue, vtime=vtime, env_limit=3, queue_limit=1)
    producer.open()
    traffic = Traffic(producer, [])
    traffic.arrive(["acme:eu", "acme:eu", "b/c", "d"], server_now_ms(client) - 1000)
    traffic.serve(2, server_now_ms(client))
    traffic.finish(1)
    keys = sorted(str(k)[len(prefix) :] for k in client.scan_iter(f"{prefix}*", count=1000))
    assert {key: kind_of(key) for key in keys} == {key: client.type(prefix + key) for key in keys}
    assert f"masterQueue:shard:{shard_of(ENV)}" in keys and 0 <= shard_of(ENV) < SHARDS
    assert any(key.endswith(":ck:acme:eu") for key in keys)  # a concurrency key with `:`
    assert (":ckVtime" in " ".join(keys)) == vtime  # flag off: no vtime key at all
    message = json.loads(str(client.get(queue.message("run_000002"))))
    assert set(message) >= FIELDS
    assert message["queue"] == queue.member("acme:eu")


def test_a_watcher_reading_while_traffic_runs_is_never_thrown(
    redis_server: RedisServer,  # noqa: F811
    client: redis.Redis,
    prefix: str,
) -> None:
    queue = live_queue(prefix)
    producer = Producer(client, queue, env_limit=4, queue_limit=1)
    producer.open()
    traffic = Traffic(producer, [])
    stop = threading.Event()

    def run() -> None:
        own = Traffic(Producer(redis_server.client(), queue, env_limit=4, queue_limit=1), [])
        own.made = 100_000  # run ids of its own
        while not stop.is_set():
            now = server_now_ms(own.producer.client)
            own.arrive(["a", "b:1", "c", "a"], now - 10)
            own.serve(3, now)
            own.finish(3)

    producer_thread = threading.Thread(target=run)
    traffic.arrive(["a"], server_now_ms(client))
    producer_thread.start()
    try:
        with read_only_user(redis_server, prefix) as url:
            reader = redis.Redis.from_url(url, decode_responses=True)
            pictures = [read_picture(reader, queue) for _ in range(40)]
    finally:
        stop.set()
        producer_thread.join()
    assert all(json.dumps(p.to_json()) for p in pictures)
    # the reads saw the traffic: commands of others between their commandstats reads
    assert any(not p.cost.exact for p in pictures)
