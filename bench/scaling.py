"""Benchmark: cost per dequeued run as the number of keys grows, and the matrix vs its floor.

Part 1, per discipline x light keys (`ck_many_keys` with its light family resized): the first
`--runs` dequeued runs of one seed, timed `--repeat` times; per dequeued run: wall ms and the
client's CPU (each min and median), and the server's command time (INFO commandstats) of the
same stretch. Rescoring disciplines rewrite every key's score per attempt by design: their server
share grows with the keys; baseline (and vtime, when registered) should stay flat.

Part 2, the default matrix run cell after cell on one connection, against its *pipelined
floor*: the very command stream those cells sent, replayed into the same namespaces in large
packets, so only the waiting on replies differs (packed by hiredis and read by redis-py, as
any client would: the same for every tree, whatever ckviz's own packing); and run by `ckviz
--headless` as a user runs it (its own embedded server, its default --jobs), with the CPU
of all its processes (its server's included). The one-connection run also prints the CPU of
ckviz and of its server (a wall time on a shared machine moves with what else runs; the CPU
much less), and on Linux counts the server's read() and write() calls per round trip
(/proc/PID/io).

Part 3, `ck_many_keys` (10,001 keys, 3 seeds) run whole by `ckviz --headless`, checks on,
for the disciplines whose order the Lua keeps (baseline, vtime): the aim is under 20 s.

--against REV measures REV's ckviz too (a `git archive` first on PYTHONPATH, bench/trees.py),
side by side in the same run: each cell of parts 1 and 2 runs in a child process per tree
(its own embedded server), the trees alternating cell by cell so both see the same load; part
3's commands alternate on one server.

With `--keys-100k`, only part 4 (bench/keys_100k.py): `ck_100k_keys` (100,001 keys), baseline
and vtime together with `--jobs 2`, checks on: wall time, peak RSS, results size, the slowest
script calls from SLOWLOG and INFO commandstats (the aims: under 150 s, 2 GiB, no BUSY).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hiredis import pack_command
from redis.exceptions import ResponseError
from trees import ckviz_argv, env_of, trees_to_measure

from ckviz.disciplines.registry import FACTORIES, make_discipline
from ckviz.model.matrix import Treatment
from ckviz.model.scenario import Scenario
from ckviz.sim.cell.session import new_namespace, open_cell
from ckviz.store import runqueue

try:
    from ckviz.store.prefix import delete_prefix
except ImportError:  # a revision before store/prefix.py (bench --against)
    from ckviz.store.runqueue import delete_prefix  # type: ignore[attr-defined,no-redef]
from ckviz.store.server import open_server

try:
    from ckviz.inputs import scenario_files
except ImportError:  # a revision before the inputs package (bench --against)
    from ckviz import scenario_files  # type: ignore[attr-defined,no-redef]

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


def table_samples(
    client: Any, discipline: str, light: int, runs: int, repeat: int
) -> list[tuple[float, ...]]:
    """`repeat` samples of `per_run` for one row of part 1."""
    scenario = resized(scenario_files.load("ck_many_keys"), light)
    timed = runs if make_discipline(discipline).door.rescores else None
    return [per_run(client, scenario, discipline, timed) for _ in range(repeat)]


def scaling_table(
    trees: dict[str, Path], client: Any, disciplines: list[str], runs: int, repeat: int
) -> None:
    """Lua-ordered disciplines run whole; rescoring ones (hours at 10,000 keys) a stretch.
    Side by side, each sample is one child per tree, the trees taking turns."""
    print(
        f"ck_many_keys (seed-a) with the light family resized, {repeat} repeats; ms per "
        f"dequeued run over the whole run, or (*) over {runs} runs after the first {WARM_UP}"
    )
    head = f"{'discipline':<11} {'keys':>6}"
    for name in trees:
        head += f" | {name + ': wall min / median':>30} {'client min / median':>19}"
        head += f" {'ranking':>7} {'server':>7}"
    print(head)
    for discipline in disciplines:
        rescores = make_discipline(discipline).door.rescores
        for light in KEY_COUNTS:
            got: dict[str, list[Any]] = {name: [] for name in trees}
            if len(trees) == 1:
                got["this tree"] = table_samples(client, discipline, light, runs, repeat)
            else:
                job = {"kind": "table", "discipline": discipline, "light": light}
                job |= {"runs": runs, "repeat": 1}
                for _ in range(repeat):
                    for name, tree in trees.items():
                        got[name] += run_child(tree, job)
            label = discipline + ("*" if rescores else "")
            row = f"{label:<11} {light + 1:>6}"
            for samples in got.values():
                walls, cpus = [s[0] for s in samples], [s[1] for s in samples]
                _, _, ranking, server = min(samples)
                row += f" | {min(walls):>17.3f} / {statistics.median(walls):>8.3f}"
                row += f" {min(cpus):>8.3f} / {statistics.median(cpus):>8.3f}"
                row += f" {ranking:>7.3f} {server:>7.3f}"
            print(row, flush=True)
    print(
        "client: ckviz's CPU per run (min / median of the samples); ranking: the discipline's"
        " own advance (the spike's O(K) per attempt) and server: the server's command time,"
        " of the fastest sample"
    )


@contextlib.contextmanager
def recording(trips: list[int] | None = None) -> Iterator[list[tuple[Any, ...]]]:
    """Every command any run queue sends meanwhile, in order (for the replay); `trips[0]`
    counts the packets they went in."""
    stream: list[tuple[Any, ...]] = []
    original = runqueue.RunQueue._roundtrip

    def kept(self: runqueue.RunQueue, commands: Any) -> list[Any]:
        stream.extend(c[0] for c in commands)
        if trips is not None and commands:
            trips[0] += 1
        return original(self, commands)

    runqueue.RunQueue._roundtrip = kept  # type: ignore[method-assign]
    try:
        yield stream
    finally:
        runqueue.RunQueue._roundtrip = original  # type: ignore[method-assign]


def server_syscalls(pid: int | None) -> tuple[int, int]:
    """The server's read() and write() calls so far (Linux; zeros elsewhere)."""
    try:
        fields = dict(
            line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().split("\n") if line
        )
    except (OSError, ValueError):
        return 0, 0
    return int(fields["syscr"]), int(fields["syscw"])


def matrix_run(server: Any, client: Any, tree: Path) -> tuple[float, ...]:
    """One go of part 2: (one connection, `ckviz --headless`, floor) seconds, commands,
    `--headless`'s CPU seconds (`tree`'s ckviz), the server's reads and writes per trip on
    one connection, the CPU seconds of ckviz and the server on one connection, and the
    server's CPU seconds within the floor."""
    matrix = scenario_files.load_matrix("default")
    scenarios = [scenario_files.load(n) for n in matrix.scenarios]
    root = new_namespace("ckviz-bench")
    trips = [0]
    calls = server_syscalls(getattr(server, "pid", None))
    cpu_before = own_cpu(), server_cpu(client)
    started = time.perf_counter()
    with recording(trips) as stream:
        for i, sc in enumerate(scenarios):
            for treatment in matrix.all_treatments():
                for seed in matrix.seeds:
                    prefix = f"{root}{i}:{treatment.name}:{seed}:"
                    with open_cell(client, sc, seed, treatment, prefix) as driver:
                        driver.run()
    wall = time.perf_counter() - started
    ckviz_cpu, redis_cpu = own_cpu() - cpu_before[0], server_cpu(client) - cpu_before[1]
    reads, writes = (
        b - a for a, b in zip(calls, server_syscalls(getattr(server, "pid", None)), strict=True)
    )
    replayed = server_cpu(client)
    floor = replay(client, stream)
    floor_cpu = server_cpu(client) - replayed
    delete_prefix(client, root)
    headless, cpu = headless_run(None, tree)
    per_trip = max(trips[0], 1)
    trip = (reads / per_trip, writes / per_trip)
    return wall, headless, floor, len(stream), cpu, *trip, ckviz_cpu, redis_cpu, floor_cpu


def own_cpu() -> float:
    """This process's CPU seconds (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_cpu(client: Any) -> float:
    """The server's CPU seconds (user and system) so far, as it counts them."""
    cpu = client.info("cpu")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def matrix_vs_floor(trees: dict[str, Path], server: Any, client: Any, repeat: int) -> None:
    print("\ndefault matrix vs its pipelined floor (the same command stream in packets of 2,000)")
    rows: dict[str, list[tuple[float, ...]]] = {name: [] for name in trees}
    for attempt in range(1, repeat + 1):
        for name, tree in trees.items():
            if len(trees) == 1:
                got = matrix_run(server, client, tree)
            else:
                got = run_child(tree, {"kind": "matrix", "tree": str(tree)})
            wall, headless, floor, commands, cpu, reads, writes, ckviz_cpu, redis_cpu, own = got
            rows[name].append((wall, headless, floor))
            print(
                f"{name} run {attempt}: one connection {wall:.2f} s (CPU ckviz {ckviz_cpu:.2f} s"
                f" + server {redis_cpu:.2f} s), `ckviz --headless`"
                f" {headless:.2f} s (CPU {cpu:.2f} s), floor {floor:.2f} s (server CPU"
                f" {own:.2f} s, {commands:.0f} commands): {wall / floor:.2f}x /"
                f" {headless / floor:.2f}x the floor;"
                f" one connection: the server's reads / writes per trip {reads:.2f} / {writes:.2f}",
                flush=True,
            )
    for name in trees:
        for label, col in (("one connection", 0), ("ckviz --headless", 1)):
            ratios = [r[col] / r[2] for r in rows[name]]
            print(
                f"{name}, {label}: min {min(ratios):.2f}x, "
                f"median {statistics.median(ratios):.2f}x the floor"
            )


def end_to_end(trees: dict[str, Path], server: Any, disciplines: list[str], repeat: int) -> None:
    """The 10,000-key scenario whole, as a user runs it: every seed, checks on."""
    print("\nckviz --headless --scenario ck_many_keys (3 seeds x 22,000 runs, checks on), s")
    for discipline in disciplines:
        args = ("--scenario", "ck_many_keys", "--discipline", discipline)
        walls: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(repeat):  # the trees alternate
            for name, tree in trees.items():
                walls[name].append(headless_seconds(server.url, tree, *args))
        cells = "".join(
            f"  {name}: min {min(w):6.2f} median {statistics.median(w):6.2f}"
            for name, w in walls.items()
        )
        print(f"{discipline:<11}{cells}", flush=True)


def headless_seconds(url: str, tree: Path, *args: str) -> float:
    """Wall seconds of the real command (`tree`'s) on the same server (its default --jobs,
    its checks), from process start to exit: what a user waits for."""
    return headless_run(url, tree, *args)[0]


def headless_run(url: str | None, tree: Path, *args: str) -> tuple[float, float]:
    """Wall and CPU seconds (of all its processes) of the real command (`tree`'s), its
    default --jobs, its checks, from process start to exit, on the server `url` names, else
    on its own embedded server (started and stopped within the time)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results.json"
        where = ("--redis-url", url) if url else ()
        command = ckviz_argv("--headless", *where, *args)
        command += ["--out", str(out)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env_of(tree))
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return wall, cpu


def replay(client: Any, stream: list[tuple[Any, ...]], packet: int = 2000) -> float:
    """Send `stream` again in packets of `packet` commands; seconds spent. Each packet is
    packed by hiredis alone: with the tree's own packer (store/packing.py's `pack`) the floor was a
    measure of ckviz's packing too, and fell as much as the command when its caches came
    (the same stream: 1.44-1.49 s packed as 44a091f did, 1.36-1.38 s as f5afced does)."""
    conn = client.connection_pool.get_connection()
    try:
        started = time.perf_counter()
        for i in range(0, len(stream), packet):
            chunk = stream[i : i + packet]
            conn.send_packed_command([b"".join([pack_command(tuple(c)) for c in chunk])], False)
            for _ in chunk:
                with contextlib.suppress(ResponseError):  # a refused reply is still a reply
                    conn.read_response()
        return time.perf_counter() - started
    finally:
        client.connection_pool.release(conn)


def child(job: dict[str, Any]) -> Any:
    """One cell of part 1 or one go of part 2 on this process's ckviz and its own server."""
    with open_server() as server, contextlib.closing(server.client()) as client:
        if job["kind"] == "table":
            return table_samples(
                client, job["discipline"], job["light"], job["runs"], job["repeat"]
            )
        # the child's own tree: `ckviz --headless` once ran this file's tree for every tree
        return matrix_run(server, client, Path(job["tree"]))


def run_child(tree: Path, job: dict[str, Any]) -> Any:
    command = [sys.executable, __file__, "--child", json.dumps(job)]
    proc = subprocess.run(command, env=env_of(tree), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed ({tree}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])


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
    parser.add_argument("--against", metavar="REV", help="also measure REV's code (e.g. main)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument(
        "--keys-100k",
        action="store_true",
        help="run only ck_100k_keys (baseline + vtime, --jobs 2), --repeat times",
    )
    args = parser.parse_args()
    if args.keys_100k:  # imported here: a --against child's tree need not have it
        from keys_100k import hundred_k

        hundred_k(["baseline", "vtime"], jobs=2, repeat=args.repeat)
        return
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    wanted = args.discipline or ["baseline", "sfq", "vtime"]
    disciplines = [d for d in wanted if d in FACTORIES]
    with tempfile.TemporaryDirectory(prefix="ckviz-bench-tree-") as tmp, open_server() as server:
        trees = trees_to_measure(args.against, Path(tmp))
        client = server.client()
        print(f"redis {server.version} ({server.mode}); invariant checks on")
        scaling_table(trees, client, disciplines, args.runs, args.repeat)
        if args.matrix:
            matrix_vs_floor(trees, server, client, args.repeat)
        if args.end_to_end:
            lua_ordered = [d for d in disciplines if not make_discipline(d).door.rescores]
            end_to_end(trees, server, lua_ordered, args.repeat)
        client.close()


if __name__ == "__main__":
    main()
