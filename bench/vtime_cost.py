"""Benchmark: what native virtual time costs the server, per dequeue call and per ack.

For 100, 1,000 and 10,000 keys, the baseline dequeue (dequeue.lua) against vtime at HEAD and
V17 (vtime's dequeue.lua), batches of 10: server microseconds per script call (INFO
commandstats usec_per_call of EVALSHA, CONFIG RESETSTAT around each script's calls, so one
script is measured at a time) and Redis calls per call (every redis.call inside the script,
as commandstats counts them). Then a fully gated call: every CK queue at its per-queue limit,
so the call scans its windows and serves nothing. Prints a table; not a test. The vtime rows
run without the per-call trace (as production would); `vtime+trace` is the step harness's
call, which returns what each pass looked at.
Runs on its own embedded server (CONFIG RESETSTAT resets the whole server's statistics).
Each cell runs --repeat times, the modes interleaved (one round of every mode, then the next),
and prints the lowest and the median figure: on a shared machine the spread is all other load.
`--before FILE` adds a `vtime (before)` row: HEAD with that dequeue script (e.g.
`git show main:ckviz/disciplines/vtime/lua/dequeue.lua > before.lua`), measured in the same rounds;
it must take today's ARGV (the vtime tail at 11-17, as since the door passes it).
`--breakdown` then times, one by one, the commands SPEC-vtime 5.2 adds to a dequeue call.
`--instructions` runs the server under callgrind (bench/callgrind.py) and adds the instructions
it executed per dequeue call: the same work counts the same however loaded the machine is (the
microseconds are then ~50 times a plain server's and mean nothing). `--max-count N` asks each
dequeue for N runs instead of 10 (a small batch: the call's fixed work weighs more).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import statistics
from collections.abc import Callable, Iterator
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import redis
from callgrind import Instructions, counted_server

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.vtime.door import state_keys, version_of, vtime_door
from ckviz.disciplines.vtime.knobs import VtimeKnobs
from ckviz.disciplines.vtime.values import VtimeDequeue
from ckviz.model.clock import T0
from ckviz.model.queue import DequeuedRun, PlannedRun
from ckviz.sim.cell.session import new_namespace
from ckviz.store import scripts
from ckviz.store.keys import ck_member
from ckviz.store.prefix import delete_prefix
from ckviz.store.runqueue import RunQueue, Trip
from ckviz.store.scripts import LUA_ORDER, Door, LuaScript
from ckviz.store.server import RedisServer, open_server

NOW = T0 + 1_000_000_000
# `baseline (TTL key)`: the baseline on a database holding one key with a TTL, as vtime's is
# (its state keys expire) and a production server's is: Redis then looks every key a command
# touches up in the expiry table too, which a database without one skips.
TTL_KEY = "baseline (TTL key)"
MODES: tuple[str, ...] = ("baseline", TTL_KEY, "vtime", "vtime-v17", "vtime+trace")
BEFORE = "vtime (before)"
_swapped: list[LuaScript] = []  # the dequeue script `dequeue_script` swaps in, while it does
_counter: list[Instructions] = []  # with --instructions: the server's instruction counter
MAX_COUNT = [10]  # runs each dequeue asks for (--max-count)


@contextlib.contextmanager
def dequeue_script(source: str | None) -> Iterator[None]:
    """The bench (only) swaps in another vtime dequeue.lua: its door names that script."""
    if source is None:
        yield
        return
    # the libs in load_scripts' order, then only the functions the script calls, as the door's
    libs = ("ckviz.store", scripts.LIFECYCLE_LIB, "ckviz.disciplines.vtime")
    lib = "".join((resources.files(p) / "lua" / scripts.LIB).read_text() for p in libs)
    _swapped.append(LuaScript("dequeue (before)", scripts.with_lib(lib, source)))
    try:
        yield
    finally:
        _swapped.clear()


def door_of(mode: str) -> Door:
    """The door a mode's runs go through (the vtime modes without a trace but `+trace`)."""
    version = version_of(mode.split(" ")[0].split("+")[0])
    if version is None:
        return LUA_ORDER
    door = vtime_door(version, Tuning(VtimeKnobs(), trace=mode.endswith("+trace")))
    return replace(door, dequeue=_swapped[0]) if _swapped else door


class Bench:
    """One mode on one namespace: enqueue, dequeue and ack through that mode's scripts."""

    def __init__(self, client: redis.Redis, mode: str, env_limit: int, per_key: int | None):
        self.client = client
        prefix = new_namespace("ckviz-bench")
        self.q = RunQueue(client, prefix, env_limit, per_key_limit=per_key, door=door_of(mode))
        self.q.open()
        if mode == TTL_KEY:
            client.set(f"{prefix}ttl-probe", "1", ex=86_400)

    def enqueue(self, trip: Trip, key: str, i: int) -> None:
        trip.enqueue(PlannedRun(key, f"{key}-{i}", 0, 0), T0 + i)

    def dequeue(self) -> list[DequeuedRun]:
        trip = self.q.trip()
        slot = trip.dequeue(MAX_COUNT[0], NOW)
        reply = trip.send()[slot]
        return reply.runs if isinstance(reply, VtimeDequeue) else list(reply)

    def ack(self, trip: Trip, run: DequeuedRun) -> None:
        trip.ack(run.run_id, run.key)

    def close(self) -> None:
        delete_prefix(self.client, self.q.keys.prefix)
        self.q.close()


def server_cost(client: redis.Redis, work: Callable[[], int]) -> tuple[float, float, float]:
    """(usec per script call, Redis calls per script call, server instructions per script
    call, 0 unless counted) of the scripts `work` sends; `work` returns how many script calls
    it made."""
    client.config_resetstat()
    calls, executed = _counter[0].count(work) if _counter else (work(), 0)
    stats: dict[str, Any] = client.info("commandstats")
    scripts = stats.get("cmdstat_evalsha", {"usec": 0, "calls": 0})
    inner = sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_evalsha")
    per = max(calls, 1)
    return int(scripts["usec"]) / per, inner / per, executed / per


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
        fill(bench, keys, per_key=math.ceil(calls * MAX_COUNT[0] / keys) + 2)  # nobody drains
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

        deq_us, deq_cmds, deq_instr = server_cost(client, dequeues)
        ack_us, ack_cmds, _ = server_cost(client, acks)
    finally:
        bench.close()
    gated = Bench(client, mode, env_limit=1_000_000, per_key=1)
    try:
        fill(gated, keys, per_key=2)
        for k in range(keys):  # every CK queue holds a run: all at their per-queue limit
            client.sadd(gated.q.keys.ck_held(f"k{k:05d}"), "elsewhere")
        gated_us, gated_cmds, gated_instr = server_cost(
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
        "deq_instr": deq_instr,
        "gated_instr": gated_instr,
        "gated_cmds": gated_cmds,
    }


# The commands SPEC-vtime 5.2 adds to a HEAD dequeue call that serves 10 keys and drains
# none: (label, times per call, the Lua that runs it once; `m` is one of the 10 first members).
SPEC_COMMANDS: tuple[tuple[str, int, str], ...] = (
    (
        "ZADD ckVtime tag advance (per serve)",
        10,
        "redis.call('ZADD', z, 1, m) redis.call('ZADD', z, 0, m)",
    ),
    ("ZRANGE ckVtime 0 59 (pass-1 scan, names)", 1, "redis.call('ZRANGE', z, 0, 59)"),
    ("ZSCORE ckVtime (floor repair, per serve)", 11, "redis.call('ZSCORE', z, m)"),
    (
        "ZRANGEBYSCORE ckIndex LIMIT 0 30 (pass 2)",
        1,
        "redis.call('ZRANGEBYSCORE', z, '-inf', '+inf', 'LIMIT', 0, 30)",
    ),
    ("GET floor", 1, "redis.call('GET', f)"),
    ("SET floor EX", 1, "redis.call('SET', f, '0', 'EX', 86400)"),
    (
        "ZREMRANGEBYSCORE + ZREMRANGEBYRANK idle",
        1,
        "redis.call('ZREMRANGEBYSCORE', i, '-inf', '0') "
        "redis.call('ZREMRANGEBYRANK', i, 0, -10001)",
    ),
    ("EXPIRE ckVtime", 1, "redis.call('EXPIRE', z, 86400)"),
)
_LOOP = """local z, f, i = KEYS[1], KEYS[2], KEYS[3]
local members = redis.call('ZRANGE', z, 0, 9)
for n = 1, tonumber(ARGV[1]) do
  local m = members[(n % 10) + 1]
  BODY
end
return 1"""
BREAKDOWN_LOOPS = 2000


def print_breakdown(client: redis.Redis, keys: int, repeat: int) -> None:
    """Microseconds per command, each timed alone in a Lua loop on a ckVtime of `keys` members
    (all at tag 0, as the bench's), minus the empty loop; lowest of `repeat`."""
    prefix = new_namespace("ckviz-bench")
    layout = RunQueue(client, prefix, 1).keys
    names = (state_keys(layout).tags, state_keys(layout).floor, state_keys(layout).idle)
    try:
        for start in range(0, keys, 2000):
            stop = min(keys, start + 2000)
            client.zadd(names[0], {ck_member(f"k{k:05d}"): 0 for k in range(start, stop)})

        def usec(body: str) -> float:
            sha = client.script_load(_LOOP.replace("BODY", body))
            best = math.inf
            for _ in range(repeat):
                client.config_resetstat()
                client.evalsha(sha, 3, *names, BREAKDOWN_LOOPS)
                stats = client.info("commandstats")["cmdstat_evalsha"]
                best = min(best, float(stats["usec"]) / BREAKDOWN_LOOPS)
            return best

        empty = usec("")
        print(f"\nvtime-only commands of a HEAD call serving 10 of {keys:,} keys, timed alone:")
        print("| command | per call | us each | us per call |\n|---|---|---|---|")
        total = 0.0
        for label, times, body in SPEC_COMMANDS:
            each = max(usec(body) - empty, 0.0) / (2 if body.count("redis.call") == 2 else 1)
            per_call = each * times * (2 if label.startswith("ZREMRANGE") else 1)
            total += per_call
            print(f"| {label} | {times} | {each:.2f} | {per_call:.1f} |")
        print(f"| total | | | {total:.1f} |")
    finally:
        delete_prefix(client, prefix)


@contextlib.contextmanager
def server_for(counted: bool) -> Iterator[RedisServer]:
    """ckviz's embedded server; with `counted`, under callgrind, its counter in `_counter`."""
    if not counted:
        with open_server() as server:
            yield server
        return
    with counted_server() as (server, counter):
        _counter.append(counter)
        try:
            yield server
        finally:
            _counter.clear()


def instructions(m: dict[str, float], baseline: list[dict[str, float]]) -> str:
    """The instruction columns of a row (the lowest of its rounds)."""
    base = min(r["deq_instr"] for r in baseline)
    return f" {m['deq_instr']:,.0f} (x{m['deq_instr'] / base:.3f}) | {m['gated_instr']:,.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=300, help="dequeue calls per cell")
    parser.add_argument("--keys", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; min and median shown")
    parser.add_argument("--before", type=Path, help="an earlier vtime dequeue.lua to compare")
    parser.add_argument("--breakdown", action="store_true", help="time the vtime-only commands")
    parser.add_argument(
        "--instructions", action="store_true", help="count server instructions (valgrind)"
    )
    parser.add_argument("--max-count", type=int, default=10, help="runs asked per dequeue")
    args = parser.parse_args()
    MAX_COUNT[0] = args.max_count
    sizes = [int(n) for n in args.keys.split(",")]
    before = args.before.read_text() if args.before else None
    modes = (*MODES, BEFORE) if before else MODES
    with server_for(args.instructions) as server:
        client = server.client()
        print(
            f"redis {server.version}, {args.calls} calls of max_count {MAX_COUNT[0]} per cell, "
            f"{args.repeat} rounds (min / median)"
            + (", under callgrind: the times mean nothing" if _counter else "")
        )
        head = (
            "keys",
            "mode",
            "us/dequeue min (x baseline)",
            "us/dequeue median",
            "cmds/dequeue",
            "us/ack",
            "cmds/ack",
            "cmds/served run",
            "us/gated call",
            "cmds/gated call",
            *(("instructions/dequeue (x baseline)", "instructions/gated call") if _counter else ()),
        )
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for keys in sizes:
            rounds: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
            for _ in range(args.repeat):
                for mode in modes:
                    with dequeue_script(before if mode == BEFORE else None):
                        rounds[mode].append(measure(client, mode, keys, args.calls))
            base = min(r["deq_us"] for r in rounds["baseline"])
            for mode in modes:
                runs = rounds[mode]
                m = {field: min(r[field] for r in runs) for field in runs[0]}
                median = statistics.median(r["deq_us"] for r in runs)
                ratio, ratio_median = (
                    m["deq_us"] / base,
                    median / statistics.median(r["deq_us"] for r in rounds["baseline"]),
                )
                print(
                    f"| {keys:,} | {mode} | {m['deq_us']:.1f} (x{ratio:.2f}) "
                    f"| {median:.1f} (x{ratio_median:.2f}) | {m['deq_cmds']:.1f} "
                    f"| {m['ack_us']:.1f} | {m['ack_cmds']:.1f} | {m['per_run']:.1f} "
                    f"| {m['gated_us']:.1f} | {m['gated_cmds']:.1f} |"
                    + (instructions(m, rounds["baseline"]) if _counter else "")
                )
        if args.breakdown:
            print_breakdown(client, max(sizes), args.repeat)
        client.close()


if __name__ == "__main__":
    main()
