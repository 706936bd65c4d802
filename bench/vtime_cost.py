"""Benchmark: what native virtual time costs the server, per dequeue call and per ack.

For 100, 1,000 and 10,000 keys, the baseline dequeue (dequeue.lua) against vtime at HEAD and
V17 (vtime_dequeue.lua), batches of 10: server microseconds per script call (INFO
commandstats usec_per_call of EVALSHA, CONFIG RESETSTAT around each script's calls, so one
script is measured at a time) and Redis calls per call (every redis.call inside the script,
as commandstats counts them). Then a fully gated call: every CK queue at its per-queue limit,
so the call scans its windows and serves nothing. Prints a table; not a test. The vtime rows
run without the per-call trace (as production would); `vtime+trace` is the step harness's
call, which returns what each pass looked at.
Runs on its own embedded server (CONFIG RESETSTAT resets the whole server's statistics).
Each cell runs --repeat times and keeps the lowest figure: on a shared machine the spread is
all other load.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

import redis

from ckviz.model.queue import PlannedRun
from ckviz.sim.session import new_namespace
from ckviz.sim.steps import DEFAULT_KNOBS, T0
from ckviz.store import vtime
from ckviz.store.runqueue import DequeuedRun, RunQueue, Trip, delete_prefix
from ckviz.store.server import open_server
from ckviz.store.vtime import Version, VtimeDequeue

NOW = T0 + 1_000_000_000
MODES: tuple[str, ...] = ("baseline", "vtime", "vtime-v17", "vtime+trace")
VERSIONS: dict[str, Version] = {"vtime": "head", "vtime-v17": "v17", "vtime+trace": "head"}


class Bench:
    """One mode on one namespace: enqueue, dequeue and ack through that mode's scripts."""

    def __init__(self, client: redis.Redis, mode: str, env_limit: int, per_key: int | None):
        self.client = client
        self.version = VERSIONS.get(mode)
        self.trace = mode.endswith("+trace")
        self.q = RunQueue(client, new_namespace("ckviz-bench"), env_limit, per_key_limit=per_key)
        self.q.open()

    def enqueue(self, trip: Trip, key: str, i: int) -> None:
        run = PlannedRun(key, f"{key}-{i}", 0, 0)
        if self.version is None:
            trip.enqueue(run, T0 + i)
        else:
            vtime.enqueue(trip, self.q.keys, run, T0 + i, self.version, DEFAULT_KNOBS)

    def dequeue(self) -> list[DequeuedRun]:
        trip = self.q.trip()
        if self.version is None:
            slot = trip.dequeue(10, NOW)
        else:
            slot = vtime.dequeue(trip, self.q.keys, self.q.env_limit, 10, NOW, self.version,
                                 DEFAULT_KNOBS, trace=self.trace)  # fmt: skip
        reply = trip.send()[slot]
        return reply.runs if isinstance(reply, VtimeDequeue) else list(reply)

    def ack(self, trip: Trip, run: DequeuedRun) -> None:
        if self.version is None:
            trip.ack(run.run_id, run.key)
        else:
            vtime.ack(trip, self.q.keys, run.run_id, run.key, self.version, DEFAULT_KNOBS)

    def close(self) -> None:
        delete_prefix(self.client, self.q.keys.prefix)
        self.q.close()


def server_cost(client: redis.Redis, work: Callable[[], int]) -> tuple[float, float]:
    """(usec per script call, Redis calls per script call) of the scripts `work` sends;
    `work` returns how many script calls it made."""
    client.config_resetstat()
    calls = work()
    stats: dict[str, Any] = client.info("commandstats")
    scripts = stats.get("cmdstat_evalsha", {"usec": 0, "calls": 0})
    inner = sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_evalsha")
    return int(scripts["usec"]) / max(calls, 1), inner / max(calls, 1)


def fill(bench: Bench, keys: int, per_key: int) -> None:
    trip = bench.q.trip()
    for i in range(per_key):
        for k in range(keys):
            bench.enqueue(trip, f"k{k:05d}", i)
            if len(trip) >= 2000:
                trip.send()
                trip = bench.q.trip()
    trip.send()


def measure(client: redis.Redis, mode: str, keys: int, calls: int) -> dict[str, float]:
    bench = Bench(client, mode, env_limit=1_000_000, per_key=None)
    try:
        fill(bench, keys, per_key=math.ceil(calls * 10 / keys) + 2)  # nobody drains
        served: list[DequeuedRun] = []

        def dequeues() -> int:
            for _ in range(calls):
                served.extend(bench.dequeue())
            return calls

        def acks() -> int:
            trip = bench.q.trip()
            for run in served:
                bench.ack(trip, run)
            trip.send()
            return len(served)

        deq_us, deq_cmds = server_cost(client, dequeues)
        ack_us, ack_cmds = server_cost(client, acks)
    finally:
        bench.close()
    gated = Bench(client, mode, env_limit=1_000_000, per_key=1)
    try:
        fill(gated, keys, per_key=2)
        for k in range(keys):  # every CK queue holds a run: all at their per-queue limit
            client.sadd(gated.q.keys.ck_held(f"k{k:05d}"), "elsewhere")
        gated_us, gated_cmds = server_cost(
            client, lambda: [gated.dequeue() for _ in range(calls)] and calls
        )
    finally:
        gated.close()
    per_run = (deq_cmds * calls + ack_cmds * len(served)) / max(len(served), 1)
    return {
        "deq_us": deq_us,
        "deq_cmds": deq_cmds,
        "ack_us": ack_us,
        "ack_cmds": ack_cmds,
        "per_run": per_run,
        "gated_us": gated_us,
        "gated_cmds": gated_cmds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=300, help="dequeue calls per cell")
    parser.add_argument("--keys", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=5, help="cells run this often; min kept")
    args = parser.parse_args()
    sizes = [int(n) for n in args.keys.split(",")]
    with open_server() as server:
        client = server.client()
        print(f"redis {server.version}, {args.calls} calls of max_count 10 per cell")
        head = ("keys", "mode", "us/dequeue", "cmds/dequeue", "us/ack", "cmds/ack",
                "cmds/served run", "us/gated call", "cmds/gated call")  # fmt: skip
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for keys in sizes:
            base: dict[str, float] = {}
            for mode in MODES:
                runs = [measure(client, mode, keys, args.calls) for _ in range(args.repeat)]
                m = {field: min(r[field] for r in runs) for field in runs[0]}
                base = base or m
                ratio = m["deq_us"] / base["deq_us"] if base["deq_us"] else 0.0
                print(
                    f"| {keys:,} | {mode} | {m['deq_us']:.1f} (x{ratio:.2f}) | {m['deq_cmds']:.1f} "
                    f"| {m['ack_us']:.1f} | {m['ack_cmds']:.1f} | {m['per_run']:.1f} "
                    f"| {m['gated_us']:.1f} | {m['gated_cmds']:.1f} |"
                )
        client.close()


if __name__ == "__main__":
    main()
