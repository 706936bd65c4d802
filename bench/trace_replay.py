"""Benchmark: replay a day of traffic from a trace (issue: a day in bounded memory). Writes a
trace of N runs at a day's rate (10,000,000 runs over 86,400,000 ms: 8.64 ms a run, 500
keys), replays it with `ckviz --headless` under each discipline (`--jobs`, one cell each) on a
server this bench starts, and prints per size: wall time, the replay's peak RSS, and the
client's and the server's CPU per run replayed. Sizes of the same rate show whether memory
is flat in the day's length.

    uv run python bench/trace_replay.py [--runs N ...] [--discipline D ...] [--jobs N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import redis

from ckviz.store.server import embedded_server

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the benches' folder
from keys_100k import children_cpu_s, cpu_s, tree_rss_kb
from trace_load import write_trace

DAY_MS, DAY_RUNS = 86_400_000, 10_000_000


def replay(
    url: str, trace: Path, disciplines: list[str], jobs: int, out: Path
) -> tuple[float, int, str]:
    """Wall seconds, the peak RSS (KiB) of the replay's processes, and its stderr's tail."""
    command = [sys.executable, "-m", "ckviz", "--headless", "--redis-url", url]
    command += ["--scenario", str(trace), "--jobs", str(jobs), "--out", str(out), "--force", "-q"]
    for name in disciplines:
        command += ["--discipline", name]
    peak = [0]
    done = threading.Event()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def sample() -> None:
        while not done.wait(0.5):
            peak[0] = max(peak[0], tree_rss_kb(process.pid))

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    _, stderr = process.communicate()
    done.set()
    watcher.join()
    tail = stderr.decode(errors="replace")[-2000:] if process.returncode else ""
    return time.perf_counter() - started, peak[0], tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--keys", type=int, default=500)
    parser.add_argument("--discipline", action="append", dest="disciplines")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    disciplines = args.disciplines or ["baseline", "vtime"]
    with tempfile.TemporaryDirectory() as folder, embedded_server() as server:
        client = redis.Redis.from_url(server.url)
        for runs in args.runs:
            trace = Path(folder) / f"day-{runs}.csv"
            write_trace(trace, runs, args.keys, False, runs * DAY_MS // DAY_RUNS)
            replayed = runs * len(disciplines)
            server_before, client_before = cpu_s(client), children_cpu_s()
            wall, peak_kb, tail = replay(
                server.url, trace, disciplines, args.jobs, Path(folder) / "r.json"
            )
            client_cpu, server_cpu = children_cpu_s() - client_before, cpu_s(client) - server_before
            print(
                f"{runs:,} runs x {', '.join(disciplines)} (--jobs {args.jobs}): "
                f"{wall:.0f} s, peak RSS {peak_kb / 1024:.0f} MiB, client CPU "
                f"{client_cpu / replayed * 1e6:.1f} us/run, server CPU "
                f"{server_cpu / replayed * 1e6:.1f} us/run"
                + (f"\n  failed: {tail}" if tail else ""),
                flush=True,
            )
        trace.unlink(missing_ok=True)
        client.close()


if __name__ == "__main__":
    main()
