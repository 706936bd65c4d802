"""Benchmark: `ck_100k_keys` (100,001 keys, ~202,000 runs), baseline and vtime, checks on, one
seed, `--jobs 2`: what a user waits for, and what the shared server went through.

`ckviz --headless` runs against an embedded server this bench starts (the same binary and
settings as ckviz's own), so the bench can read what the server saw: SLOWLOG (every command
over 1 ms, the slowest script calls named) and INFO commandstats (EVALSHA calls and time).
Prints wall seconds, the peak RSS (the largest ckviz process, and the whole ckviz process tree
sampled every 0.2 s), the results file's size, the slowest script calls, and whether any cell
saw `BUSY`. Run alone as `python -m bench.keys_100k` or through `bench/scaling.py --keys-100k`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckviz.disciplines.vtime.door import SCRIPTS as VTIME_SCRIPTS
from ckviz.store.scripts import RUN_QUEUE
from ckviz.store.server import open_server

SLOW_US = 1000  # SLOWLOG keeps every command over this many microseconds
SCRIPT_NAMES = {s.sha: f"vtime {n}" for n, s in VTIME_SCRIPTS.items()} | {
    s.sha: n for n, s in RUN_QUEUE.items()
}


@dataclass(frozen=True)
class Sample:
    """One run of the command and what the server logged meanwhile."""

    wall_s: float
    exit_code: int
    largest_rss_mb: float
    tree_rss_mb: float
    results_mb: float
    busy: bool
    slowest: list[tuple[float, str]]  # (ms, script or command), slowest first
    over_5ms: int
    evalsha_calls: int
    evalsha_s: float


def tree_rss_kb(root: int) -> int:
    """Resident kB of `root` and every process below it (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        pid, parent = int(entry), int(fields.get("PPid", "0").strip() or 0)
        children.setdefault(parent, []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def named(command: bytes | str | Iterable[Any]) -> str:
    """A SLOWLOG entry's command, its script named (redis-py joins the words into one)."""
    if isinstance(command, bytes):
        command = command.decode(errors="replace")
    words = command.split() if isinstance(command, str) else [str(w) for w in command]
    if words and words[0].upper() == "EVALSHA" and len(words) > 1:
        return f"EVALSHA {SCRIPT_NAMES.get(words[1], words[1][:8])}"
    return " ".join(words[:2])


def run_once(url: str, client: Any, disciplines: list[str], jobs: int, out: Path) -> Sample:
    client.config_set("slowlog-log-slower-than", SLOW_US)
    client.config_set("slowlog-max-len", 100_000)
    client.slowlog_reset()
    client.config_resetstat()
    command = [sys.executable, "-m", "ckviz", "--headless", "--redis-url", url]
    command += ["--scenario", "ck_100k_keys", "--seeds", "seed-a", "--jobs", str(jobs)]
    command += [a for d in disciplines for a in ("--discipline", d)]
    command += ["--out", str(out), "--force", "-q"]
    peak = [0]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], tree_rss_kb(process.pid))

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    _, stderr = process.communicate()
    wall = time.perf_counter() - started
    done.set()
    watcher.join()
    # the largest process ever waited for below this one (ckviz waits for its workers)
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    log = client.slowlog_get(100_000)
    ours = ("SLOWLOG", "INFO", "CONFIG")  # the bench's own reads
    calls = [(e["duration"] / 1000, named(e["command"])) for e in log]
    slowest = sorted(((ms, what) for ms, what in calls if not what.startswith(ours)), reverse=True)
    evalsha = client.info("commandstats").get("cmdstat_evalsha", {"calls": 0, "usec": 0})
    text = stderr.decode(errors="replace")
    if process.returncode != 0:
        print(text[-2000:], file=sys.stderr)
    return Sample(
        wall,
        process.returncode,
        largest / 1024,
        peak[0] / 1024,
        out.stat().st_size / 1e6 if out.exists() else 0.0,
        "BUSY" in text,
        slowest[:5],
        sum(1 for ms, _ in slowest if ms > 5),
        int(evalsha["calls"]),
        int(evalsha["usec"]) / 1e6,
    )


def report(samples: list[Sample], disciplines: list[str], jobs: int) -> None:
    walls = [s.wall_s for s in samples]
    print(
        f"\nck_100k_keys (100,001 keys), {' + '.join(disciplines)}, seed-a, checks on,"
        f" --jobs {jobs}, {len(samples)} run(s)"
    )
    print(f"wall s: min {min(walls):.1f}, median {statistics.median(walls):.1f}")
    for i, s in enumerate(samples, 1):
        print(
            f"run {i}: exit {s.exit_code}, {s.wall_s:.1f} s, peak RSS {s.largest_rss_mb:.0f} MB"
            f" (largest process) / {s.tree_rss_mb:.0f} MB (process tree), results"
            f" {s.results_mb:.1f} MB, BUSY {'seen' if s.busy else 'never'}; EVALSHA"
            f" {s.evalsha_calls} calls, {s.evalsha_s:.1f} s server time; calls over 5 ms:"
            f" {s.over_5ms}"
        )
        for ms, what in s.slowest[:3]:
            print(f"    slowest: {ms:8.2f} ms  {what}")


def hundred_k(disciplines: list[str], jobs: int, repeat: int) -> None:
    """Run the scenario `repeat` times on one fresh embedded server and print the figures."""
    with open_server() as server, tempfile.TemporaryDirectory() as folder:
        client = server.client()
        out = Path(folder) / "results.json"
        samples = [run_once(server.url, client, disciplines, jobs, out) for _ in range(repeat)]
        client.close()
    report(samples, disciplines, jobs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--discipline", action="append", help="default: baseline and vtime")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    hundred_k(args.discipline or ["baseline", "vtime"], args.jobs, args.repeat)


if __name__ == "__main__":
    main()
