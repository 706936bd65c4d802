"""Benchmark: what `ckviz capture`'s change notices cost the watched server.

A queue on the real layout (ckviz's producer) serves --runs runs (enqueue, dequeue, ack) on
ckviz's own embedded server, first with no capture attached, then with a notice connection
attached as `ckviz capture --method notify` opens it (CLIENT TRACKING ON BCAST over the
queue's prefixes), alternating --repeat times. For each: the server time of the producer's
script calls (INFO commandstats, usec of EVALSHA) per 1,000 runs, min and median, and the
notices the connection received. Also the server time of one poll (`ckviz capture --method
poll`'s read of the whole queue) at --queued runs queued. Prints a table; not a test.
"""

from __future__ import annotations

import argparse
import statistics
import time

import redis

from ckviz.live.capture import Capture, poll_once, read_start
from ckviz.live.names import LiveQueue
from ckviz.live.notices import Notices
from ckviz.live.producer import Producer
from ckviz.store.server import embedded_server

PREFIX = "bench:capture:"


def script_usec(client: redis.Redis) -> float:
    stats = client.info("commandstats")
    return float(stats.get("cmdstat_evalsha", {}).get("usec", 0))


def serve(producer: Producer, runs: int, start_ms: int) -> None:
    for n in range(runs):
        producer.enqueue(f"run_{start_ms}_{n}", f"key:{n % 50}", start_ms + n)
        for run_id, key in producer.dequeue(1, start_ms + runs):
            producer.ack(run_id, key)


def one_round(
    url: str, client: redis.Redis, queue: LiveQueue, runs: int, watched: bool
) -> tuple[float, int]:
    producer = Producer(client, queue, env_limit=100)
    notices = (
        Notices(url, [f"{queue.prefix}{queue.base}:", queue.env_key(":deadLetter")])
        if watched
        else None
    )
    before = script_usec(client)
    serve(producer, runs, int(time.time() * 1000))
    spent = script_usec(client) - before
    named = 0
    if notices is not None:
        while keys := notices.wait(0.05):
            named += len(keys)
        notices.close()
    return spent / runs * 1000, named


def poll_cost(client: redis.Redis, queued: int) -> float:
    """The server usec of one poll of a queue with `queued` runs queued over 100 keys."""
    queue = LiveQueue(f"{PREFIX}poll:", "orgbench", "projbench", "envbench", "task/x")
    producer = Producer(client, queue, env_limit=100)
    producer.open()
    now = int(time.time() * 1000)
    producer.enqueue_many((f"q_{n}", f"key:{n % 100}", now - queued + n) for n in range(queued))
    cap = Capture(queue, "poll", 1000.0, now)
    read_start(client, cap)
    total = client.info("commandstats")
    poll_once(client, cap, time.time() * 1000)
    after = client.info("commandstats")
    return sum(
        float(after[k]["usec"]) - float(total.get(k, {}).get("usec", 0))
        for k in after
        if k != "cmdstat_info"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--queued", type=int, default=10_000)
    ns = p.parse_args()
    with embedded_server() as server:
        client = server.client()
        queue = LiveQueue(PREFIX, "orgbench", "projbench", "envbench", "task/x")
        Producer(client, queue, env_limit=100).open()
        spent: dict[bool, list[float]] = {False: [], True: []}
        named = 0
        for _ in range(ns.repeat):
            for watched in (False, True):
                usec, count = one_round(server.url, client, queue, ns.runs, watched)
                spent[watched].append(usec)
                named = max(named, count)
        print(
            f"server usec of the producer's scripts per 1,000 runs ({ns.runs} runs x {ns.repeat})"
        )
        for watched, label in ((False, "no capture"), (True, "notices attached")):
            s = spent[watched]
            print(f"  {label:18} min {min(s):9.0f}  median {statistics.median(s):9.0f}")
        print(f"  notices received in a round: {named} keys named")
        usec = poll_cost(client, ns.queued)
        print(f"one poll of {ns.queued} runs queued over 100 keys: {usec:.0f} usec of server time")


if __name__ == "__main__":
    main()
