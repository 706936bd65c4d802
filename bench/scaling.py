"""Benchmark: cost per dequeued run as the number of keys grows, and the matrix vs its floor.

Part 1, per discipline x light keys (`ck_many_keys` with its light family resized): the first
`--runs` dequeued runs of one seed, timed `--repeat` times; per dequeued run: wall ms (min and
median), and the client's CPU and the server's command time (INFO commandstats) of the same
stretch. Rescoring disciplines rewrite every key's score per attempt by design: their server
share grows with the keys; baseline (and vtime, when registered) should stay flat.

Part 2, the default matrix run cell after cell on one connection, against its *pipelined
floor*: the very command stream those cells sent, replayed into the same namespaces in large
packets, so only the waiting on replies differs.

Part 3, `ck_many_keys` (10,001 keys, 3 seeds) run whole by `ckviz --headless`, checks on,
for the disciplines whose order the Lua keeps (baseline, vtime): the aim is under 20 s.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from redis.exceptions import ResponseError

from ckviz.disciplines.registry import FACTORIES, make_discipline
from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.sim.session import new_namespace, open_cell
from ckviz.store import runqueue
from ckviz.store.server import open_server

KEY_COUNTS = (100, 1_000, 10_000)
WARM_UP = 20  # dequeued runs before the timing starts


def resized(base: Scenario, light: int) -> Scenario:
    keys = [k.model_copy(update={"count": light}) if k.count else k for k in base.keys]
    return base.model_copy(update={"keys": keys, "name": f"{base.name}[light.count={light}]"})


def server_usec(client: Any) -> int:
    return sum(int(v["usec"]) for v in client.info("commandstats").values())


def per_run(
    client: Any, scenario: Scenario, discipline: str, runs: int | None
) -> tuple[float, ...]:
    """(wall, client cpu, of which the discipline's ranking, server) ms per dequeued run: over
    the whole run when `runs` is None, else over `runs` runs after the warm-up (the enqueues
    that fall in that stretch count too, and with 10,000 light keys they are many per run)."""
    prefix = new_namespace("ckviz-bench") + "s:"
    with open_cell(client, scenario, "seed-a", Treatment(discipline=discipline), prefix) as d:
        if runs is not None:
            d.run(until_dequeued=WARM_UP)  # past t=0, where every light key enqueues at once
        ranking = time_ranking(d)
        first = len(d.events)
        before = server_usec(client)
        wall, cpu = time.perf_counter(), time.process_time()
        d.run(until_dequeued=None if runs is None else first + runs)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        server = (server_usec(client) - before) / 1000
        out = len(d.events) - first
    return wall * 1000 / out, cpu * 1000 / out, ranking[0] * 1000 / out, server / out


def time_ranking(driver: Any) -> list[float]:
    """Time a rescoring discipline's own `advance` (its O(K) ranking, the spike's cost) apart
    from ckviz's work around it: CPU seconds, accumulated in the returned list."""
    spent = [0.0]
    for consumer in driver.turns.consumers:
        discipline = getattr(consumer.plan, "discipline", None)
        if discipline is None or not discipline.door.rescores:
            continue
        advance = discipline.advance

        def timed(active: Any, now: int, advance: Any = advance) -> list[str]:
            started = time.process_time()
            try:
                return advance(active, now)  # type: ignore[no-any-return]
            finally:
                spent[0] += time.process_time() - started

        discipline.advance = timed
    return spent


def scaling_table(client: Any, disciplines: list[str], runs: int, repeat: int) -> None:
    """Lua-ordered disciplines run whole; rescoring ones (hours at 10,000 keys) a stretch."""
    base = scenario_files.load("ck_many_keys")
    print(
        f"ck_many_keys (seed-a) with the light family resized, {repeat} repeats; ms per "
        f"dequeued run over the whole run, or (*) over {runs} runs after the first {WARM_UP}"
    )
    head = f"{'discipline':<11} {'keys':>6} {'min':>8} {'median':>8} {'client':>8}"
    print(head + f" {'ranking':>8} {'ckviz':>8} {'server':>8}")
    for discipline in disciplines:
        rescores = make_discipline(discipline).door.rescores
        timed = runs if rescores else None
        for light in KEY_COUNTS:
            scenario = resized(base, light)
            samples = [per_run(client, scenario, discipline, timed) for _ in range(repeat)]
            walls = [s[0] for s in samples]
            _, cpu, ranking, server = min(samples)
            label = discipline + ("*" if rescores else "")
            print(
                f"{label:<11} {light + 1:>6} {min(walls):>8.3f} {statistics.median(walls):>8.3f}"
                f" {cpu:>8.3f} {ranking:>8.3f} {cpu - ranking:>8.3f} {server:>8.3f}"
            )
    print(
        "client: ckviz's CPU per run, of which ranking: the discipline's own advance (the"
        " spike's O(K) per attempt), and ckviz: the rest (driver, projection, decoding,"
        " packing, checks); server: the server's command time"
    )


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[Any, ...]]]:
    """Every command any run queue sends meanwhile, in order (for the replay)."""
    stream: list[tuple[Any, ...]] = []
    original = runqueue.RunQueue._roundtrip

    def kept(self: runqueue.RunQueue, commands: Any) -> list[Any]:
        stream.extend(c[0] for c in commands)
        return original(self, commands)

    runqueue.RunQueue._roundtrip = kept  # type: ignore[method-assign]
    try:
        yield stream
    finally:
        runqueue.RunQueue._roundtrip = original  # type: ignore[method-assign]


def matrix_vs_floor(server: Any, client: Any, repeat: int) -> None:
    matrix = scenario_files.load_matrix("default")
    scenarios = [scenario_files.load(n) for n in matrix.scenarios]
    print("\ndefault matrix vs its pipelined floor (the same command stream in packets of 2,000)")
    rows: list[tuple[float, float, float]] = []
    for attempt in range(1, repeat + 1):
        root = new_namespace("ckviz-bench")
        started = time.perf_counter()
        with recording() as stream:
            for i, sc in enumerate(scenarios):
                for treatment in matrix.all_treatments():
                    for seed in matrix.seeds:
                        prefix = f"{root}{i}:{treatment.name}:{seed}:"
                        with open_cell(client, sc, seed, treatment, prefix) as driver:
                            driver.run()
        wall = time.perf_counter() - started
        floor = replay(client, stream)
        runqueue.delete_prefix(client, root)
        headless = headless_seconds(server.url)
        rows.append((wall, headless, floor))
        print(
            f"run {attempt}: one connection {wall:.2f} s, `ckviz --headless` {headless:.2f} s,"
            f" floor {floor:.2f} s ({len(stream)} commands):"
            f" {wall / floor:.2f}x / {headless / floor:.2f}x the floor"
        )
    for name, col in (("one connection", 0), ("ckviz --headless", 1)):
        ratios = [r[col] / r[2] for r in rows]
        print(f"{name}: min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x the floor")


def end_to_end(server: Any, disciplines: list[str], repeat: int) -> None:
    """The 10,000-key scenario whole, as a user runs it: every seed, checks on."""
    print("\nckviz --headless --scenario ck_many_keys (3 seeds x 22,000 runs, checks on), s")
    for discipline in disciplines:
        args = ("--scenario", "ck_many_keys", "--discipline", discipline)
        walls = [headless_seconds(server.url, *args) for _ in range(repeat)]
        print(f"{discipline:<11} min {min(walls):6.2f}  median {statistics.median(walls):6.2f}")


def headless_seconds(url: str, *args: str) -> float:
    """Wall seconds of the real command on the same server (its default --jobs, its checks),
    from process start to exit: what a user waits for."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results.json"
        command = [sys.executable, "-m", "ckviz", "--headless", "--redis-url", url, *args]
        command += ["--out", str(out)]
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - started


def replay(client: Any, stream: list[tuple[Any, ...]], packet: int = 2000) -> float:
    """Send `stream` again in packets of `packet` commands; seconds spent."""
    conn = client.connection_pool.get_connection()
    try:
        started = time.perf_counter()
        for i in range(0, len(stream), packet):
            chunk = stream[i : i + packet]
            conn.send_packed_command(runqueue._pack(conn, chunk), False)
            for _ in chunk:
                with contextlib.suppress(ResponseError):  # a refused reply is still a reply
                    conn.read_response()
        return time.perf_counter() - started
    finally:
        client.connection_pool.release(conn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=400, help="dequeued runs timed per sample")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--discipline", action="append", help="default: baseline, sfq, vtime")
    parser.add_argument("--no-matrix", dest="matrix", action="store_false")
    parser.add_argument(
        "--no-end-to-end",
        dest="end_to_end",
        action="store_false",
        help="skip ck_many_keys run whole by `ckviz --headless` (baseline, vtime)",
    )
    args = parser.parse_args()
    wanted = args.discipline or ["baseline", "sfq", "vtime"]
    disciplines = [d for d in wanted if d in FACTORIES]
    with open_server() as server:
        client = server.client()
        print(f"redis {server.version} ({server.mode}); invariant checks on")
        scaling_table(client, disciplines, args.runs, args.repeat)
        if args.matrix:
            matrix_vs_floor(server, client, args.repeat)
        if args.end_to_end:
            lua_ordered = [d for d in disciplines if not make_discipline(d).door.rescores]
            end_to_end(server, lua_ordered, args.repeat)
        client.close()


if __name__ == "__main__":
    main()
