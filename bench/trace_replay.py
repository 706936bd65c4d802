"""Benchmark: replay a day of traffic from a trace (issue: a day in bounded memory). Writes a
trace of N runs at a day's rate (10,000,000 runs over 86,400,000 ms: 8.64 ms a run, 500
keys), replays it with `ckviz --headless` under each discipline (`--jobs`, one cell each) on a
server this bench starts, and prints per replay what the issue's done-when asks: the wall
time, each cell's peak RSS (one worker process per cell: its own high-water mark, VmHWM),
the replay's processes together (sampled), the client's and the server's CPU per run
replayed, and whether the results are complete (every run dequeued, nothing stopped). Sizes
of the same rate show whether memory is flat in the day's length: with two sizes or more, the
largest's peak is compared with the smallest's (the done-when: within 20%).

    uv run python bench/trace_replay.py --runs 1000000 10000000     # the done-when (quiet!)
    uv run python bench/trace_replay.py --runs 100000 --repeat 3 --against main

Holds are 1 to --hold-max - 1 ms. The default (40: a mean of 20 ms, 4 slots kept 58% busy)
is a queue that keeps up, as a day of real traffic does on average: what it holds at once
does not grow with the day. At --hold-max 200 (a mean of 100 ms) arrivals come three times
faster than 4 slots serve them, so the backlog, and what the books and Redis hold, grow with
the day whatever ckviz keeps.

--against REV replays with REV's ckviz too (bench/trees.py), the trees alternating replay by
replay so both see the same load; --repeat N replays each N times and prints min / median.
--progress lets ckviz's progress lines through (a long replay says how far it is).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import redis

from ckviz.store.server import embedded_server

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the benches' folder
from keys_100k import children_cpu_s, cpu_s
from server_watch import tree_memory_kb
from trace_load import write_trace
from trees import ckviz_argv, env_of, trees_to_measure

DAY_MS, DAY_RUNS = 86_400_000, 10_000_000
WALL_GOAL_S, CELL_GOAL_MIB, FLAT_GOAL = 1800, 1024, 0.20  # the done-when


@dataclass(frozen=True)
class Replay:
    """One replay's figures."""

    wall_s: float
    cell_peaks_mib: list[float]  # each worker's high-water mark (a cell each)
    tree_peak_mib: float  # the ckviz processes together, sampled every 0.5 s
    client_us: float  # per run replayed (runs x disciplines)
    server_us: float
    complete: bool
    failed: str  # the stderr's tail, if ckviz failed


def replay(
    tree: Path, url: str, trace: Path, args: argparse.Namespace, out: Path, client: redis.Redis
) -> Replay:
    """Replay `trace` with `tree`'s ckviz under each discipline, one cell each."""
    command = ckviz_argv("--headless", "--redis-url", url, "--scenario", str(trace))
    command += ["--jobs", str(args.jobs), "--out", str(out), "--force"]
    command += [] if args.progress else ["-q"]
    for name in args.disciplines:
        command += ["--discipline", name]
    server_before, client_before = cpu_s(client), children_cpu_s()
    started = time.perf_counter()
    stderr = None if args.progress else subprocess.PIPE
    process = subprocess.Popen(command, env=env_of(tree), stdout=subprocess.DEVNULL, stderr=stderr)
    watch = PeakWatch(process.pid)
    _, err = process.communicate()
    wall = time.perf_counter() - started
    watch.stop()
    replayed = trace_runs(trace) * len(args.disciplines)
    client_cpu = (children_cpu_s() - client_before) / replayed * 1e6
    server_cpu = (cpu_s(client) - server_before) / replayed * 1e6
    failed = (err or b"").decode(errors="replace")[-2000:] if process.returncode else ""
    complete = not failed and results_complete(out, trace_runs(trace))
    cells = sorted(kb / 1024 for pid, kb in watch.peaks.items() if pid != process.pid)
    if not cells:  # one cell, or --jobs 1: it ran in ckviz's own process
        cells = [watch.peaks.get(process.pid, 0) / 1024]
    return Replay(wall, cells, watch.tree / 1024, client_cpu, server_cpu, complete, failed)


class PeakWatch:
    """The high-water mark of every process below `root` (VmHWM, read until it ends), and the
    largest resident total of the tree, sampled."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peaks: dict[int, int] = {}
        self.tree = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.5):
            total = 0
            for pid, (rss, hwm) in tree_memory_kb(self.root).items():
                self.peaks[pid] = max(self.peaks.get(pid, 0), hwm)
                total += rss
            self.tree = max(self.tree, total)

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


_RUNS: dict[Path, int] = {}


def trace_runs(trace: Path) -> int:
    if trace not in _RUNS:
        with trace.open("rb") as f:
            _RUNS[trace] = sum(1 for _ in f) - 1  # a header line, then a run a line
    return _RUNS[trace]


def results_complete(out: Path, runs: int) -> bool:
    """The results say complete, and every cell dequeued the whole trace, unstopped."""
    try:
        results = json.loads(out.read_text())
    except (OSError, ValueError):
        return False
    cells = [run for s in results["scenarios"] for run in s["runs"]]
    return bool(results.get("complete")) and all(
        "stopped_at" not in run and run["metrics"]["total_dequeued"] == runs for run in cells
    )


def spread(values: list[float], digits: int = 0) -> str:
    """min / median, or the one value."""
    if len(values) == 1:
        return f"{values[0]:,.{digits}f}"
    return f"{min(values):,.{digits}f} / {statistics.median(values):,.{digits}f}"


def summary(runs: int, name: str, replays: list[Replay], jobs: int) -> str:
    cells = [max(r.cell_peaks_mib, default=0.0) for r in replays]
    each = ", ".join(f"{p:.0f}" for p in replays[-1].cell_peaks_mib)
    done = all(r.complete for r in replays)
    wall_ok = min(r.wall_s for r in replays) <= WALL_GOAL_S
    cell_ok = max(cells) < CELL_GOAL_MIB
    return (
        f"{runs:,} runs, {name} (--jobs {jobs}): wall {spread([r.wall_s for r in replays])} s"
        f" ({'within' if wall_ok else 'over'} {WALL_GOAL_S // 60} min); each cell's peak RSS"
        f" {each} MiB ({'under' if cell_ok else 'NOT under'} 1 GiB), together"
        f" {spread([r.tree_peak_mib for r in replays])} MiB; CPU per run: client"
        f" {spread([r.client_us for r in replays], 1)} us, server"
        f" {spread([r.server_us for r in replays], 1)} us; results"
        f" {'complete' if done else 'NOT complete'}"
    )


def flatness(peaks: dict[int, float]) -> str:
    """The largest size's peak against the smallest's (same rate: a longer day)."""
    small, large = min(peaks), max(peaks)
    change = peaks[large] / peaks[small] - 1
    verdict = "within" if abs(change) <= FLAT_GOAL else "NOT within"
    return (
        f"memory in the day's length: {large:,} runs peak {peaks[large]:.0f} MiB against "
        f"{small:,} runs {peaks[small]:.0f} MiB: {change:+.0%} ({verdict} 20%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--keys", type=int, default=500)
    parser.add_argument("--discipline", action="append", dest="disciplines")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--hold-max", type=int, default=40, help="holds of 1 to this - 1 ms")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--against", metavar="REV", help="also replay with REV's ckviz")
    parser.add_argument("--progress", action="store_true", help="ckviz's progress lines through")
    args = parser.parse_args()
    args.disciplines = args.disciplines or ["baseline", "vtime"]
    with tempfile.TemporaryDirectory() as folder, embedded_server() as server:
        trees = trees_to_measure(args.against, Path(folder))
        client = redis.Redis.from_url(server.url)
        peaks: dict[int, float] = {}
        for runs in args.runs:
            trace = Path(folder) / f"day-{runs}.csv"
            write_trace(trace, runs, args.keys, False, runs * DAY_MS // DAY_RUNS, args.hold_max)
            done: dict[str, list[Replay]] = {name: [] for name in trees}
            for attempt in range(args.repeat):
                for name, tree in trees.items():
                    got = replay(tree, server.url, trace, args, Path(folder) / "r.json", client)
                    done[name].append(got)
                    print(
                        f"  {runs:,} runs, {name}, replay {attempt + 1}: {got.wall_s:.0f} s, "
                        f"client {got.client_us:.1f} us/run, server {got.server_us:.1f} us/run"
                        + (f"\n  failed: {got.failed}" if got.failed else ""),
                        flush=True,
                    )
            for name, replays in done.items():
                print(summary(runs, name, replays, args.jobs), flush=True)
            peaks[runs] = max(max(r.cell_peaks_mib, default=0.0) for r in done["this tree"])
            trace.unlink()
        if len(peaks) > 1:
            print(flatness(peaks))
        client.close()


if __name__ == "__main__":
    main()
