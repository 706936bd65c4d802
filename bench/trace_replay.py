"""Benchmark: replay a day of traffic from a trace (issue: a day in bounded memory). Writes a
trace of N runs at a day's rate (10,000,000 runs over 86,400,000 ms: 8.64 ms a run, 500
keys), replays it with `ckviz --headless` under each discipline (`--jobs`, one cell each) on a
server this bench starts, and prints per size: wall time, the replay's peak RSS (the ckviz
processes together, and the most one process reached: a cell's worker), and the client's and
the server's CPU per run replayed. Sizes of the same rate show whether memory is flat in the
day's length.

Holds are 1 to --hold-max - 1 ms. The default (40: a mean of 20 ms, 4 slots kept 58% busy)
is a queue that keeps up, as a day of real traffic does on average: what it holds at once
does not grow with the day. At --hold-max 200 (a mean of 100 ms) arrivals come three times
faster than 4 slots serve them, so the backlog, and what the books and Redis hold, grow with
the day whatever ckviz keeps.

    uv run python bench/trace_replay.py [--runs N ...] [--discipline D ...] [--jobs N]
        [--hold-max MS]
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
) -> tuple[float, int, int, str]:
    """Wall seconds, the peak RSS (KiB) of the replay's processes together and of the largest
    one, and its stderr's tail."""
    command = [sys.executable, "-m", "ckviz", "--headless", "--redis-url", url]
    command += ["--scenario", str(trace), "--jobs", str(jobs), "--out", str(out), "--force", "-q"]
    for name in disciplines:
        command += ["--discipline", name]
    peak, most = [0], [0]
    done = threading.Event()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def sample() -> None:
        while not done.wait(0.5):
            peak[0] = max(peak[0], tree_rss_kb(process.pid))
            most[0] = max(most[0], largest_rss_kb(process.pid))

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    _, stderr = process.communicate()
    done.set()
    watcher.join()
    tail = stderr.decode(errors="replace")[-2000:] if process.returncode else ""
    return time.perf_counter() - started, peak[0], most[0], tail


def largest_rss_kb(root: int) -> int:
    """The largest resident kB of one process among `root` and those below it (from /proc):
    a cell runs in one of them."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
        except (OSError, ValueError):
            continue
        pid = int(status.parent.name)
        children.setdefault(int(fields.get("PPid", "0").strip() or 0), []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    most, todo = 0, [root]
    while todo:
        pid = todo.pop()
        most = max(most, rss.get(pid, 0))
        todo += children.get(pid, [])
    return most


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--keys", type=int, default=500)
    parser.add_argument("--discipline", action="append", dest="disciplines")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--hold-max", type=int, default=40, help="holds of 1 to this - 1 ms")
    args = parser.parse_args()
    disciplines = args.disciplines or ["baseline", "vtime"]
    with tempfile.TemporaryDirectory() as folder, embedded_server() as server:
        client = redis.Redis.from_url(server.url)
        for runs in args.runs:
            trace = Path(folder) / f"day-{runs}.csv"
            span = runs * DAY_MS // DAY_RUNS
            write_trace(trace, runs, args.keys, False, span, args.hold_max)
            replayed = runs * len(disciplines)
            server_before, client_before = cpu_s(client), children_cpu_s()
            wall, peak_kb, most_kb, tail = replay(
                server.url, trace, disciplines, args.jobs, Path(folder) / "r.json"
            )
            client_cpu, server_cpu = children_cpu_s() - client_before, cpu_s(client) - server_before
            print(
                f"{runs:,} runs x {', '.join(disciplines)} (--jobs {args.jobs}): "
                f"{wall:.0f} s, peak RSS {peak_kb / 1024:.0f} MiB (one process at most "
                f"{most_kb / 1024:.0f} MiB), client CPU "
                f"{client_cpu / replayed * 1e6:.1f} us/run, server CPU "
                f"{server_cpu / replayed * 1e6:.1f} us/run"
                + (f"\n  failed: {tail}" if tail else ""),
                flush=True,
            )
        trace.unlink(missing_ok=True)
        client.close()


if __name__ == "__main__":
    main()
