"""Benchmark: check and replay a trace of 1,000,000 runs (written to a temp folder first);
prints seconds and memory for each pass. `--runs 10000000 --span-ms 86400000` writes a day of
10,000,000 runs instead (the trace is generated here, never checked in: ~300 MiB).

Checking (what `ckviz validate` and loading a scenario do) streams the file and keeps only the
keys; replaying reads the runs again as the driver asks for them (here: all of them, each
dropped once read, so the peak RSS is the reader's, not the day's). Last, `ckviz validate`
on the file as a user runs it (a process of its own: its wall time and peak RSS), which
checks the trace and works out whether each treatment could finish it in time.

    uv run python bench/trace_load.py [--runs N] [--keys N] [--run-ids] [--span-ms MS]
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from ckviz.inputs.trace import forget_read_traces, read_trace
from ckviz.inputs.trace_stream import stream


def write_trace(
    path: Path, runs: int, keys: int, run_ids: bool, span_ms: int | None, hold_max: int = 200
) -> None:
    """`runs` runs of random keys, 0-2 ms apart (or about `span_ms` in all), epoch ms, each
    held 1 to `hold_max` - 1 ms."""
    rng = random.Random(1)
    gap = 3 if span_ms is None else max(1, 2 * span_ms // runs + 1)
    with path.open("w", encoding="utf-8") as f:
        f.write("key,arrival_ms,hold_ms" + (",run_id" if run_ids else "") + "\n")
        t = 1_767_225_600_000
        for i in range(runs):
            t += rng.randrange(0, gap)
            extra = f",run-{i}" if run_ids else ""
            f.write(f"tenant-{rng.randrange(keys)},{t},{rng.randrange(1, hold_max)}{extra}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=500)
    parser.add_argument("--run-ids", action="store_true", help="a run_id column (checked unique)")
    parser.add_argument("--span-ms", type=int, help="spread the arrivals over about this long")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.csv"
        write_trace(path, args.runs, args.keys, args.run_ids, args.span_ms)
        size = path.stat().st_size / 2**20
        print(f"trace: {args.runs} runs, {args.keys} keys, {size:.0f} MiB")
        started = time.perf_counter()
        summary = read_trace(path)
        print(f"check: {time.perf_counter() - started:.2f} s")
        forget_read_traces()  # a file read once is kept: read it cold again
        tracemalloc.start()  # a second pass, slowed by tracing, for the memory it keeps
        read_trace(path)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"check: peak Python memory {peak:.1f} MiB (traced pass)")
        started = time.perf_counter()
        runs = sum(1 for _ in stream(summary).runs)
        replay_s = time.perf_counter() - started
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"replay: {replay_s:.2f} s for {runs} runs read; process peak RSS {rss:.0f} MiB")
        started = time.perf_counter()
        command = [sys.executable, "-m", "ckviz", "validate", str(path)]
        subprocess.run(command, capture_output=True, check=False)
        validate_s = time.perf_counter() - started
        child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"ckviz validate: {validate_s:.2f} s, peak RSS {child_rss:.0f} MiB")


if __name__ == "__main__":
    main()
