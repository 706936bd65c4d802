"""Benchmark: `ck_100k_keys` (100,001 keys, ~202,000 runs), baseline and vtime, checks on, one
seed, `--jobs 2`: what a user waits for, and what the shared server went through.

`ckviz --headless` runs against an embedded server this bench starts (the same binary and
settings as ckviz's own), so the bench can read what the server saw: SLOWLOG (every command
over 1 ms, the slowest script calls named) and INFO commandstats (EVALSHA calls and time).
Prints wall seconds, the peak RSS (the largest ckviz process, and the whole ckviz process tree
sampled every 0.2 s), the results file's size, the slowest script calls, and whether any cell
saw `BUSY`, and where the CPU went: the ckviz processes' (client) and the server's seconds.
Run alone as `python -m bench.keys_100k` or through `bench/scaling.py --keys-100k`.
`--keys N` runs the same scenario resized to N light keys (the heavy key's backlog scaled
alike), to see how the figures grow on a machine that cannot afford the whole run.
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
    slowest_scripts: list[tuple[float, str]]  # script calls (EVALSHA) alone, slowest first
    scripts_over_5ms: int
    evalsha_calls: int
    evalsha_s: float
    client_cpu_s: float  # user + system seconds of ckviz and its workers
    server_cpu_s: float  # the server's, while the run ran (INFO cpu)


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


def cpu_s(client: Any) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def resized(keys: int, folder: Path) -> str:
    """`ck_100k_keys` with `keys` light keys and the heavy backlog scaled alike, as a file."""
    text = (Path(__file__).parent.parent / "scenarios" / "ck_100k_keys.toml").read_text()
    text = text.replace("count = 100000", f"count = {keys}", 1)
    text = text.replace("runs = 2000", f"runs = {max(1, 2000 * keys // 100_000)}", 1)
    path = folder / f"ck_{keys}_keys.toml"
    path.write_text(text)
    return str(path)


def run_once(
    url: str, client: Any, disciplines: list[str], jobs: int, out: Path, scenario: str
) -> Sample:
    client.config_set("slowlog-log-slower-than", SLOW_US)
    client.config_set("slowlog-max-len", 100_000)
    client.slowlog_reset()
    client.config_resetstat()
    command = [sys.executable, "-m", "ckviz", "--headless", "--redis-url", url]
    command += ["--scenario", scenario, "--seeds", "seed-a", "--jobs", str(jobs)]
    command += [a for d in disciplines for a in ("--discipline", d)]
    command += ["--out", str(out), "--force", "-q"]
    peak = [0]
    server_before, client_before = cpu_s(client), children_cpu_s()
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
    client_cpu, server_cpu = children_cpu_s() - client_before, cpu_s(client) - server_before
    # the largest process ever waited for below this one (ckviz waits for its workers)
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    log = client.slowlog_get(100_000)
    ours = ("SLOWLOG", "INFO", "CONFIG")  # the bench's own reads
    calls = [(e["duration"] / 1000, named(e["command"])) for e in log]
    slowest = sorted(((ms, what) for ms, what in calls if not what.startswith(ours)), reverse=True)
    scripts = [(ms, what) for ms, what in slowest if what.startswith("EVALSHA")]
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
        scripts[:3],
        sum(1 for ms, _ in scripts if ms > 5),
        int(evalsha["calls"]),
        int(evalsha["usec"]) / 1e6,
        client_cpu,
        server_cpu,
    )


def report(samples: list[Sample], disciplines: list[str], jobs: int, keys: int) -> None:
    walls = [s.wall_s for s in samples]
    name = "ck_100k_keys" if keys == 100_000 else f"ck_100k_keys resized to {keys:,} light keys"
    print(
        f"\n{name} ({keys + 1:,} keys), {' + '.join(disciplines)}, seed-a, checks on,"
        f" --jobs {jobs}, {len(samples)} run(s), load average {os.getloadavg()[0]:.1f}"
    )
    print(f"wall s: min {min(walls):.1f}, median {statistics.median(walls):.1f}")
    for i, s in enumerate(samples, 1):
        print(
            f"run {i}: exit {s.exit_code}, {s.wall_s:.1f} s, peak RSS {s.largest_rss_mb:.0f} MB"
            f" (largest process) / {s.tree_rss_mb:.0f} MB (process tree), results"
            f" {s.results_mb:.1f} MB, BUSY {'seen' if s.busy else 'never'}; EVALSHA"
            f" {s.evalsha_calls} calls, {s.evalsha_s:.1f} s server time; calls over 5 ms:"
            f" {s.over_5ms}; CPU: ckviz {s.client_cpu_s:.1f} s, server {s.server_cpu_s:.1f} s"
        )
        for ms, what in s.slowest[:3]:
            print(f"    slowest: {ms:8.2f} ms  {what}")
        # the aim is about script calls (a cleanup's SCAN page is not one)
        print(f"    script calls over 5 ms: {s.scripts_over_5ms}")
        for ms, what in s.slowest_scripts:
            print(f"    slowest script call: {ms:8.2f} ms  {what}")


def hundred_k(disciplines: list[str], jobs: int, repeat: int, keys: int = 100_000) -> None:
    """Run the scenario (resized to `keys` light keys) `repeat` times on one fresh embedded
    server and print the figures."""
    with open_server() as server, tempfile.TemporaryDirectory() as folder:
        client = server.client()
        out = Path(folder) / "results.json"
        scenario = "ck_100k_keys" if keys == 100_000 else resized(keys, Path(folder))
        samples = [
            run_once(server.url, client, disciplines, jobs, out, scenario) for _ in range(repeat)
        ]
        client.close()
    report(samples, disciplines, jobs, keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--discipline", action="append", help="default: baseline and vtime")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--keys", type=int, default=100_000, help="light keys (default 100,000)")
    args = parser.parse_args()
    hundred_k(args.discipline or ["baseline", "vtime"], args.jobs, args.repeat, args.keys)


if __name__ == "__main__":
    main()
