"""Benchmark: the full default matrix on the embedded server; prints its figures.

Wall seconds, round trips per dequeued run (as the results count them), commands per
dequeued run: those ckviz sent (a script call is one command) and those the server executed
by INFO commandstats (which also counts every redis.call inside the scripts); and the CPU
seconds of the workers, the server and the parent. Several `--jobs` values (and with
`--against REV` that revision's code too) alternate go by go, each go on a server of its own,
so that a shared machine's load falls on all of them alike: min / median per configuration.
`--command` times `ckviz --headless --quiet` instead, as a user runs it (its own server, its
start and end included): wall and the CPU of all its processes, after one untimed run each;
`--quiet-only SECONDS` keeps only the rounds nothing else ran beside (bench/quiet.py).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import quiet
from trees import ckviz_argv, env_of, trees_to_measure

from ckviz.headless.cells import CellOutcome
from ckviz.headless.plan import MatrixPlan, default_jobs
from ckviz.headless.runner import run_cells
from ckviz.inputs import scenario_files
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import open_server


def command_counts(client: Any) -> int:
    stats = client.info("commandstats")
    return sum(int(v["calls"]) for v in stats.values())


def server_cpu(client: Any) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def own_cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def one_go(jobs: int, check: bool) -> dict[str, float]:
    """The default matrix once, `jobs` cells in flight, as ckviz runs it on its own server."""
    matrix = scenario_files.load_matrix("default")
    plan = MatrixPlan(
        scenarios=[scenario_files.load(n) for n in matrix.scenarios],
        seeds=list(matrix.seeds),
        treatments=matrix.all_treatments(),
        max_count=matrix.max_count,
        jobs=jobs,
        out=scenario_files.bundled_dir(),  # unused: the bench writes no results file
        check_invariants=check,
    )
    with open_server() as server:
        client = server.client()
        cells = plan.cells(new_namespace("ckviz-bench"))
        calls, served = command_counts(client), server_cpu(client)
        workers, parent = own_cpu(resource.RUSAGE_CHILDREN), own_cpu(resource.RUSAGE_SELF)
        started = time.perf_counter()
        outcomes: list[CellOutcome] = run_cells(
            server.url, cells, jobs, lambda o: None, yield_to_server=True
        )
        wall = time.perf_counter() - started
        parent = own_cpu(resource.RUSAGE_SELF) - parent
        workers = own_cpu(resource.RUSAGE_CHILDREN) - workers
        served = server_cpu(client) - served
        calls = command_counts(client) - calls - 2  # minus the INFO calls of the "before" read
        client.close()
    errors = [o.error for o in outcomes if o.error]
    if errors:
        raise SystemExit(f"a cell failed: {errors[0]}")
    results = [o.result for o in outcomes if o.result]
    dequeued = sum(r.metrics.total_dequeued for r in results)
    return {
        "wall": wall,
        "workers": workers,  # jobs 1: the cells ran in this process, counted in "parent"
        "server": served,
        "parent": parent,
        "runs": len(results),
        "dequeued": dequeued,
        "trips": sum(r.metrics.redis_round_trips for r in results) / dequeued,
        "sent": sum(o.commands_sent for o in outcomes) / dequeued,
        "calls": calls / dequeued,
    }


def go_in(tree: Path, jobs: int, check: bool) -> dict[str, float]:
    """One go in a process of its own, importing `tree`'s ckviz (this file's own functions)."""
    job = json.dumps({"jobs": jobs, "check": check})
    command = [sys.executable, __file__, "--child", job]
    proc = subprocess.run(command, env=env_of(tree), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed ({tree}):\n{proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout.splitlines()[-1]))


def command_go(tree: Path, jobs: int, check: bool) -> dict[str, float]:
    """`tree`'s `ckviz --headless --quiet` on the default matrix once: wall, CPU (all its
    processes, the server's included), and what the rest of the machine used meanwhile."""
    with tempfile.TemporaryDirectory() as folder:
        command = ckviz_argv("--headless", "--quiet", "--jobs", str(jobs))
        command += ["--out", str(Path(folder) / "results.json")]
        command += [] if check else ["--no-check-invariants"]
        before = own_cpu(resource.RUSAGE_CHILDREN)
        others = quiet.Others() if quiet.available() else None
        started = time.perf_counter()
        subprocess.run(command, check=True, env=env_of(tree))
        wall = time.perf_counter() - started
        cpu = own_cpu(resource.RUSAGE_CHILDREN) - before
        return {"wall": wall, "cpu": cpu, "others": others.used(cpu) if others else 0.0}


def commands(
    trees: dict[str, Path], jobs: list[int], repeat: int, check: bool, quiet_s: float
) -> None:
    """`repeat` rounds of every (tree, --jobs) go. With `quiet_s`, each round waits for a
    quiet second first and is kept only if the rest of the machine stayed nearly idle during
    every go of it (bench/quiet.py), until `repeat` rounds are kept or `quiet_s` passes."""
    configs = [(name, j) for name in trees for j in jobs]
    for name, j in configs:  # untimed: caches filled (bytecode where it may be written)
        command_go(trees[name], j, check)
    gone: dict[tuple[str, int], list[dict[str, float]]] = {c: [] for c in configs}
    deadline = time.monotonic() + quiet_s
    kept = 0
    while kept < repeat:
        if quiet_s and not quiet.wait_for_quiet(deadline):
            print(f"no quiet moment left within {quiet_s:.0f} s: {kept} round(s) kept")
            break
        got = {c: command_go(trees[c[0]], c[1], check) for c in configs}
        others = max(g["others"] for g in got.values())
        if quiet_s and others > quiet.OTHERS_MAX_S:
            print(f"(a round dropped: other processes used up to {others:.2f} CPU s)", flush=True)
            continue
        kept += 1
        for (name, j), g in got.items():
            gone[name, j].append(g)
            print(
                f"run {kept}, {name}, --jobs {j}: wall {g['wall']:.2f}, CPU {g['cpu']:.2f}"
                f" (others {g['others']:.2f})",
                flush=True,
            )
    for (name, j), gos in gone.items():
        if gos:
            figures = "  ".join(
                f"{what} {min(g[what] for g in gos):.2f} / "
                f"{statistics.median(g[what] for g in gos):.2f}"
                for what in ("wall", "cpu")
            )
            print(f"{name}, ckviz --headless --jobs {j} (min / median): {figures}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[default_jobs()], help="default: as ckviz"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", metavar="REV", help="also measure REV's code (e.g. main)")
    parser.add_argument(
        "--no-check-invariants",
        dest="check",
        action="store_false",
        help="measure without the per-trip invariant checks (on by default, as in ckviz)",
    )
    parser.add_argument(
        "--command", action="store_true", help="time `ckviz --headless --quiet` whole"
    )
    parser.add_argument(
        "--quiet-only",
        type=float,
        default=0,
        metavar="SECONDS",
        help="with --command: keep only rounds the rest of the machine left alone, waiting "
        "for them up to SECONDS (Linux; bench/quiet.py)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quiet_only and not (args.command and quiet.available()):
        parser.error("--quiet-only: needs --command, on Linux (/proc/stat)")
    if args.child:
        job = json.loads(args.child)
        print(json.dumps(one_go(job["jobs"], job["check"])))
        return
    with tempfile.TemporaryDirectory(prefix="ckviz-bench-tree-") as tmp:
        trees = trees_to_measure(args.against, Path(tmp))
        if args.command:
            commands(trees, args.jobs, args.repeat, args.check, args.quiet_only)
            return
        configs = [(name, jobs) for name in trees for jobs in args.jobs]
        print(f"default matrix, invariant checks {'on' if args.check else 'off'}; s")
        gone: dict[tuple[str, int], list[dict[str, float]]] = {c: [] for c in configs}
        for attempt in range(1, args.repeat + 1):
            for name, jobs in configs:
                got = go_in(trees[name], jobs, args.check)
                gone[name, jobs].append(got)
                print(
                    f"run {attempt}, {name}, --jobs {jobs}: {got['runs']:.0f} runs, "
                    f"{got['dequeued']:.0f} dequeued, wall {got['wall']:.2f}, CPU: workers "
                    f"{got['workers']:.2f}, server {got['server']:.2f}, parent "
                    f"{got['parent']:.2f}; {got['trips']:.2f} round trips/run, "
                    f"{got['sent']:.2f} commands/run sent, {got['calls']:.2f} server-side "
                    "calls/run incl. inside scripts",
                    flush=True,
                )
        for (name, jobs), gos in gone.items():
            figures = "  ".join(
                f"{what} {min(g[what] for g in gos):.2f} / "
                f"{statistics.median(g[what] for g in gos):.2f}"
                for what in ("wall", "workers", "server", "parent")
            )
            print(f"{name}, --jobs {jobs} (min / median): {figures}")


if __name__ == "__main__":
    main()
