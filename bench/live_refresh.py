"""Benchmark: what `ckviz watch` costs the watched server, per refresh.

A queue on the real layout (ckviz's producer) with 10,000 and with 100,000 keys (variants),
two runs each, a few held, flag off (baseline) and on (vtime). For each: the server time of
one refresh (`read_picture`: INFO commandstats before and after, the refresh's own commands'
usec), min and median over --repeat refreshes, and the slowest single command the watcher
sent (SLOWLOG, with slowlog-log-slower-than 0: set on ckviz's own embedded server only, never
on a server it watches). Then the discovery (SCAN over the whole keyspace) once. Targets: at
most 5 ms of server time per refresh, no command over 1 ms. Prints a table; not a test.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import redis

from ckviz.live.connect import CLIENT_NAME, attach
from ckviz.live.discover import find_queues
from ckviz.live.names import LiveQueue
from ckviz.live.producer import Producer
from ckviz.live.reading import read_picture
from ckviz.store.server import embedded_server

SIZES = (10_000, 100_000)
PREFIX = "bench:live:"


def build(client: redis.Redis, keys: int, vtime: bool) -> LiveQueue:
    """A queue of `keys` variants, two runs each, the first ten served (held)."""
    queue = LiveQueue(
        f"{PREFIX}{keys}:{int(vtime)}:", "orgbench", "projbench", "envbench", "task/x"
    )
    producer = Producer(client, queue, vtime=vtime, env_limit=100, queue_limit=1)
    producer.open()
    seconds, _ = client.time()
    start = int(seconds) * 1000 - 3_600_000
    runs = ((f"run_{k}_{n}", f"key:{k}", start + 2 * k + n) for k in range(keys) for n in range(2))
    producer.enqueue_many(runs)
    producer.dequeue(10, start + 3_600_000)
    return queue


def slowest_us(admin: redis.Redis) -> tuple[float, float, str]:
    """The watcher's commands since the last reset, from SLOWLOG: the slowest single one's
    usec, and the slowest kind's median usec with its name (on a loaded machine the single
    slowest is whichever command the scheduler preempted; a kind's median is its own cost)."""
    entries: list[dict[str, Any]] = admin.slowlog_get(100_000)
    kinds: dict[str, list[float]] = {}
    for e in entries:
        if _text(e.get("client_name")) == CLIENT_NAME:
            words = _text(e["command"]).split()
            kind = " ".join(words[:2]) if words[0] == "INFO" else words[0]
            kinds.setdefault(kind, []).append(float(e["duration"]))
    if not kinds:
        return 0.0, 0.0, ""
    single = max(max(d) for d in kinds.values())
    kind = max(kinds, key=lambda k: statistics.median(kinds[k]))
    return single, statistics.median(kinds[kind]), kind


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def measure(admin: redis.Redis, reader: redis.Redis, queue: LiveQueue, repeat: int) -> str:
    admin.slowlog_reset()
    costs = [read_picture(reader, queue).cost.server_us for _ in range(repeat)]
    single, median, kind = slowest_us(admin)
    return (
        f"refresh {min(costs) / 1000:6.3f} / {statistics.median(costs) / 1000:6.3f} ms "
        f"(min / median of {repeat}); slowest command: {kind} {median / 1000:.3f} ms "
        f"(median), any single one {single / 1000:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    args = parser.parse_args()
    with embedded_server() as server:
        admin = server.client()
        admin.config_set("slowlog-log-slower-than", 0)  # ckviz's own server only
        admin.config_set("slowlog-max-len", 100_000)
        print(f"Redis {server.version}, embedded")
        for keys in args.sizes:
            for vtime in (False, True):
                began = time.perf_counter()
                queue = build(admin, keys, vtime)
                built = time.perf_counter() - began
                (_, reader), *_ = attach(server.url)
                name = "vtime" if vtime else "baseline"
                line = measure(admin, reader, queue, args.repeat)
                print(f"{keys:>7,} keys {name:<8}  {line}   (built in {built:.0f} s)")
        (_, reader), *_ = attach(server.url)
        admin.slowlog_reset()
        began = time.perf_counter()
        found = find_queues([(server.url, reader)], PREFIX)
        took = time.perf_counter() - began
        single, median, kind = slowest_us(admin)
        print(
            f"discover: {len(found)} queues in {took:.2f} s (client); slowest command: {kind} "
            f"{median / 1000:.3f} ms (median), any single one {single / 1000:.3f} ms"
        )


if __name__ == "__main__":
    main()
