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

SLOWLOG counts wall time, so whether a slow call was the script's own cost or the kernel
taking the server off its core mid-call is told apart (bench/server_watch.py): the server's
main thread's involuntary context switches and run-queue wait are printed with every run;
`--isolate` pins the server to a CPU at a real-time priority, so nothing preempts it mid-call;
`--calls FILE` writes every logged call with its arguments, and `--recurring FILE` says which
of this run's slow calls were logged at the same logical point in that earlier run.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckviz.disciplines.vtime.door import SCRIPTS as VTIME_SCRIPTS
from ckviz.store.scripts import RUN_QUEUE
from ckviz.store.server import RedisServer, embedded_server

# One import form whether run as a module (python -m bench.keys_100k) or imported from
# bench/scaling.py's folder: the folder of the benches is on the path either way.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_watch import (
    Call,
    CpuTime,
    Scheduling,
    calls,
    cpu_time,
    isolate,
    read_calls,
    recurring,
    scheduling,
    tree_memory_kb,
    write_calls,
)

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
    logged: list[Call]  # every call SLOWLOG kept (the bench's own aside), slowest first
    evalsha_calls: int
    evalsha_s: float
    client_cpu_s: float  # user + system seconds of ckviz and its workers
    server_cpu_s: float  # the server's, while the run ran (INFO cpu)
    server_sched: Scheduling  # its main thread's, while the run ran
    cpu_time: CpuTime  # interrupts and steal on the server's CPU (every CPU's if not pinned)

    @property
    def scripts(self) -> list[Call]:
        """The script calls (EVALSHA) alone: the aim is about them (a cleanup's SCAN page is
        not one)."""
        return [c for c in self.logged if c.name.startswith("EVALSHA")]


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
    server: RedisServer, client: Any, argv: list[str], out: Path, cpu: int | None
) -> Sample:
    """Run `ckviz --headless` with `argv` and read what the server (pinned to `cpu`, if not
    None) saw."""
    client.config_set("slowlog-log-slower-than", SLOW_US)
    client.config_set("slowlog-max-len", 100_000)
    client.slowlog_reset()
    client.config_resetstat()
    command = [sys.executable, "-m", "ckviz", "--headless", "--redis-url", server.url, *argv]
    command += ["--out", str(out), "--force", "-q"]
    peak = [0]
    assert server.pid is not None  # an embedded server: this bench started it
    sched_before, cpu_before = scheduling(server.pid), cpu_time(cpu)
    server_before, client_before = cpu_s(client), children_cpu_s()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], sum(rss for rss, _ in tree_memory_kb(process.pid).values()))

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    _, stderr = process.communicate()
    wall = time.perf_counter() - started
    done.set()
    watcher.join()
    client_cpu, server_cpu = children_cpu_s() - client_before, cpu_s(client) - server_before
    sched, cpu_used = scheduling(server.pid) - sched_before, cpu_time(cpu) - cpu_before
    # the largest process ever waited for below this one (ckviz waits for its workers)
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    ours = ("SLOWLOG", "INFO", "CONFIG")  # the bench's own reads
    logged = [
        c for c in calls(client.slowlog_get(100_000), SCRIPT_NAMES) if not c.name.startswith(ours)
    ]
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
        logged,
        int(evalsha["calls"]),
        int(evalsha["usec"]) / 1e6,
        client_cpu,
        server_cpu,
        sched,
        cpu_used,
    )


def over_5ms(found: list[Call]) -> int:
    return sum(1 for c in found if c.ms > 5)


def report(
    samples: list[Sample], title: str, cpu: int | None, earlier: dict[str, list[float]] | None
) -> None:
    walls = [s.wall_s for s in samples]
    print(f"\n{title}, {len(samples)} run(s), load average {os.getloadavg()[0]:.1f}")
    print(f"wall s: min {min(walls):.1f}, median {statistics.median(walls):.1f}")
    for i, s in enumerate(samples, 1):
        print(
            f"run {i}: exit {s.exit_code}, {s.wall_s:.1f} s, peak RSS {s.largest_rss_mb:.0f} MB"
            f" (largest process) / {s.tree_rss_mb:.0f} MB (process tree), results"
            f" {s.results_mb:.1f} MB, BUSY {'seen' if s.busy else 'never'}; EVALSHA"
            f" {s.evalsha_calls} calls, {s.evalsha_s:.1f} s server time; calls over 5 ms:"
            f" {over_5ms(s.logged)}; CPU: ckviz {s.client_cpu_s:.1f} s, server"
            f" {s.server_cpu_s:.1f} s"
        )
        print(f"    {s.server_sched.line()}")
        print(f"    {s.cpu_time.line(cpu)}")
        for call in s.logged[:3]:
            print(f"    slowest: {call.ms:8.2f} ms  {call.name}")
        print_scripts(s.scripts)
        if earlier is not None:
            print_recurring(s.scripts, earlier)


def print_scripts(scripts: list[Call]) -> None:
    """The slowest script calls, and what is left of them without the time they lost inside a
    command that touches one element (microseconds of work: the rest is the server off its
    core, or stalled)."""
    slow = [c for c in scripts if c.ms > 5]
    lost = sum(1 for c in slow if c.lost_ms > 1)
    own = sorted(scripts, key=lambda c: c.own_ms, reverse=True)
    print(
        f"    script calls over 5 ms: {len(slow)}, {lost} of them lost over 1 ms inside a"
        f" single-element command; over 5 ms without that time: {over_5ms_own(scripts)}"
    )
    for call in scripts[:3]:
        print(
            f"    slowest script call: {call.ms:8.2f} ms  {call.name}"
            f" ({call.lost_ms:.2f} ms lost inside single-element commands)"
        )
        if call.inside:
            print(f"        its slowest command logged: {call.inside}")
    for call in own[:3]:
        print(f"    slowest without the lost time: {call.own_ms:8.2f} ms  {call.name}")


def over_5ms_own(found: list[Call]) -> int:
    return sum(1 for c in found if c.own_ms > 5)


def print_recurring(scripts: list[Call], earlier: dict[str, list[float]]) -> None:
    """Which of this run's slow script calls were logged at the same logical point before: a
    call slow by its own cost is slow every time; one the scheduler slowed, only by chance."""
    slow = [c for c in scripts if c.ms > 5]
    again = recurring(slow, earlier)
    print(
        f"    of the {len(slow)} script calls over 5 ms, {len(again)} were logged (over"
        f" {SLOW_US / 1000:g} ms) with the same arguments in the earlier run"
    )
    for call, before in again[:5]:
        print(
            f"        {call.ms:8.2f} ms now; then {len(before)} call(s) logged with these"
            f" arguments, {min(before):.2f}-{max(before):.2f} ms  {call.name}"
        )


def hundred_k(
    disciplines: list[str],
    jobs: int,
    repeat: int,
    keys: int = 100_000,
    isolated: bool = False,
    calls_file: Path | None = None,
    earlier: dict[str, list[float]] | None = None,
    binary: Path | None = None,
) -> None:
    """Run the scenario (resized to `keys` light keys) `repeat` times on one fresh embedded
    server and print the figures; `isolated`: the server pinned to a CPU at real-time
    priority; `calls_file`: where to write the last run's logged calls; `earlier`: a former
    run's calls, to say which slow calls recur; `binary`: a redis-server other than ckviz's."""
    name = "ck_100k_keys" if keys == 100_000 else f"ck_100k_keys resized to {keys:,} light keys"
    title = (
        f"{name} ({keys + 1:,} keys), {' + '.join(disciplines)}, seed-a, checks on, --jobs {jobs}"
    )
    with embedded_server(binary) as server, tempfile.TemporaryDirectory() as folder:
        assert server.pid is not None
        cpu, how = isolate(server.pid) if isolated else (None, "the server at normal priority")
        how = f"redis-server {server.version}; {how}"
        client = server.client()
        out = Path(folder) / "results.json"
        scenario = "ck_100k_keys" if keys == 100_000 else resized(keys, Path(folder))
        argv = ["--scenario", scenario, "--seeds", "seed-a", "--jobs", str(jobs)]
        argv += [a for d in disciplines for a in ("--discipline", d)]
        samples = [run_once(server, client, argv, out, cpu) for _ in range(repeat)]
        client.close()
    if calls_file is not None:
        write_calls(calls_file, samples[-1].logged)
    report(samples, f"{title}; {how}", cpu, earlier)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--discipline", action="append", help="default: baseline and vtime")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--keys", type=int, default=100_000, help="light keys (default 100,000)")
    parser.add_argument(
        "--isolate",
        action="store_true",
        help="the server pinned to the last CPU at SCHED_FIFO priority (nothing preempts it)",
    )
    parser.add_argument("--calls", type=Path, help="write the last run's logged calls here")
    parser.add_argument(
        "--recurring", type=Path, help="a former run's --calls file: which slow calls recur"
    )
    parser.add_argument(
        "--redis-server",
        type=Path,
        help="this redis-server binary instead of ckviz's own (another version or allocator)",
    )
    args = parser.parse_args()
    earlier = None
    if args.recurring is not None:
        try:
            earlier = read_calls(args.recurring)
        except (OSError, ValueError, KeyError) as exc:
            parser.error(f"--recurring {args.recurring}: not a --calls file ({exc})")
    hundred_k(
        args.discipline or ["baseline", "vtime"],
        args.jobs,
        args.repeat,
        args.keys,
        args.isolate,
        args.calls,
        earlier,
        args.redis_server,
    )


if __name__ == "__main__":
    main()
