"""Benchmark: what `ckviz watch` costs the watched server, per refresh.

A queue on the real layout (ckviz's producer) with 10,000 and with 100,000 keys (variants),
two runs each, ten held, flag off (baseline) and on (vtime). For each: the server time of one
refresh (`read_picture`, measured: INFO commandstats before and after, the refresh's own
commands' usec, the first INFO included), min and median over --repeat refreshes, and the
slowest single command the watcher sent (SLOWLOG, logging every command only while the
refreshes run: set on ckviz's own embedded server only, never on a server it watches; a log
filled by the build and emptied at once made the next commands pay for the memory freed).
Then the discovery (SCAN over the whole keyspace) once. The machine's load average is printed
with each line: on a shared machine the minimum is the refresh's own cost, the median what
the scheduler added. Targets: at most 5 ms of server time per refresh, no command over 1 ms.
Prints a table; not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
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


def logged(admin: redis.Redis, work: Callable[[], Any]) -> tuple[Any, float, float, str]:
    """`work()` with SLOWLOG logging every command; its result, the watcher's slowest single
    command's usec, and the slowest kind's median usec with its name (on a loaded machine the
    single slowest is whichever command the scheduler preempted; a kind's median is its own
    cost)."""
    admin.slowlog_reset()
    admin.config_set("slowlog-log-slower-than", 0)  # ckviz's own server only
    try:
        result = work()
    finally:
        admin.config_set("slowlog-log-slower-than", 10_000)
    entries: list[dict[str, Any]] = admin.slowlog_get(100_000)
    admin.slowlog_reset()
    kinds: dict[str, list[float]] = {}
    for e in entries:
        if _text(e.get("client_name")) == CLIENT_NAME:
            words = _text(e["command"]).split()
            kind = " ".join(words[:2]) if words[0] == "INFO" else words[0]
            kinds.setdefault(kind, []).append(float(e["duration"]))
    if not kinds:
        return result, 0.0, 0.0, ""
    single = max(max(d) for d in kinds.values())
    kind = max(kinds, key=lambda k: statistics.median(kinds[k]))
    return result, single, statistics.median(kinds[kind]), kind


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


BUDGET_MS, COMMAND_MS = 5.0, 1.0  # the targets: a refresh's server time, one command kind's


def measure(
    admin: redis.Redis, reader: redis.Redis, queue: LiveQueue, repeat: int, over: list[str]
) -> str:
    def refreshes() -> list[Any]:
        return [read_picture(reader, queue, measured=True).cost for _ in range(repeat)]

    costs, single, median, kind = logged(admin, refreshes)
    us = [c.server_us for c in costs]
    if statistics.median(us) / 1000 > BUDGET_MS or median / 1000 > COMMAND_MS:
        over.append(f"{queue.prefix}: {statistics.median(us) / 1000:.3f} ms, {kind} {median} us")
    return (
        f"refresh {min(us) / 1000:6.3f} / {statistics.median(us) / 1000:6.3f} ms "
        f"(min / median of {repeat}), {costs[-1].commands} commands in "
        f"{costs[-1].round_trips} trips; slowest command: {kind} {median / 1000:.3f} ms "
        f"(median), any single one {single / 1000:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    args = parser.parse_args()
    with embedded_server() as server:
        admin = server.client()
        admin.config_set("slowlog-max-len", 100_000)
        print(f"Redis {server.version}, embedded; {load()}")
        over: list[str] = []
        for keys in args.sizes:
            for vtime in (False, True):
                began = time.perf_counter()
                queue = build(admin, keys, vtime)
                built = time.perf_counter() - began
                (_, reader), *_ = attach(server.url)
                name = "vtime" if vtime else "baseline"
                line = measure(admin, reader, queue, args.repeat, over)
                print(f"{keys:>7,} keys {name:<8}  {line}   (built in {built:.0f} s; {load()})")
        verdict = "over: " + "; ".join(over) if over else "every one within"
        print(
            f"targets (median refresh <= {BUDGET_MS:g} ms, slowest command kind's median <= "
            f"{COMMAND_MS:g} ms): {verdict}"
        )
        (_, reader), *_ = attach(server.url)
        began = time.perf_counter()
        found, single, median, kind = logged(
            admin, lambda: find_queues([(server.url, reader)], PREFIX)
        )
        took = time.perf_counter() - began
        print(
            f"discover: {len(found)} queues in {took:.2f} s (client); slowest command: {kind} "
            f"{median / 1000:.3f} ms (median), any single one {single / 1000:.3f} ms"
        )


if __name__ == "__main__":
    main()
