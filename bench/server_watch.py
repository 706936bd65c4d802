"""What a bench's embedded server went through: how the kernel scheduled its main thread, and
the slow calls SLOWLOG kept, each with its arguments.

SLOWLOG counts a call's wall time, so a call the kernel took off its core mid-way is logged as
slow although the script did no more work. Two ways to tell the two apart, both used by
`bench/keys_100k.py`: the main thread's involuntary context switches and run-queue wait
(/proc), and the calls themselves: a run is deterministic (same scenario, seed, discipline),
so a call slow by its own cost is slow again at the same logical point of another run (the
same script, keys and arguments), while one slowed by the scheduler falls elsewhere each time.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# A session's key prefix carries a random token (ckviz/sim/cell/session.py): masked, so the same
# call in two runs reads the same.
_SESSION_TOKEN = re.compile(r":[0-9a-f]{12}:")


@dataclass(frozen=True)
class Scheduling:
    """The server's main thread (the one that runs every command) as the kernel scheduled it."""

    involuntary: int  # taken off its core while it still had work: preempted
    voluntary: int  # went to sleep itself, waiting for a command
    run_s: float  # on a core
    wait_s: float  # runnable, waiting for a core
    page_faults: int  # minor and major: the kernel mapping memory the server touched

    def __sub__(self, before: Scheduling) -> Scheduling:
        return Scheduling(
            self.involuntary - before.involuntary,
            self.voluntary - before.voluntary,
            self.run_s - before.run_s,
            self.wait_s - before.wait_s,
            self.page_faults - before.page_faults,
        )

    def line(self) -> str:
        return (
            f"server's main thread: {self.run_s:.1f} s on a core, {self.wait_s:.1f} s runnable"
            f" but waiting for one; taken off its core while running {self.involuntary:,}"
            f" times (involuntary context switches), slept {self.voluntary:,} times,"
            f" {self.page_faults:,} page faults"
        )


def scheduling(pid: int) -> Scheduling:
    """The main thread of process `pid` (its thread id is the pid), from /proc."""
    task = Path(f"/proc/{pid}/task/{pid}")
    fields = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines())
    run_ns, wait_ns, _ = (task / "schedstat").read_text().split()
    stat = (task / "stat").read_text().rsplit(")", 1)[1].split()  # after the command's name
    return Scheduling(
        int(fields["nonvoluntary_ctxt_switches"]),
        int(fields["voluntary_ctxt_switches"]),
        int(run_ns) / 1e9,
        int(wait_ns) / 1e9,
        int(stat[7]) + int(stat[9]),  # minflt, majflt (fields 10 and 12 of stat(5))
    )


@dataclass(frozen=True)
class CpuTime:
    """Where a CPU's time went besides its processes (/proc/stat), or every CPU's together."""

    interrupts_s: float  # hard and soft interrupts: run on whatever process was on the core
    stolen_s: float  # the hypervisor ran something else on this virtual CPU

    def __sub__(self, before: CpuTime) -> CpuTime:
        return CpuTime(self.interrupts_s - before.interrupts_s, self.stolen_s - before.stolen_s)

    def line(self, cpu: int | None) -> str:
        where = "every CPU" if cpu is None else f"CPU {cpu} (the server's)"
        return (
            f"{where} meanwhile: {self.interrupts_s:.1f} s in interrupts,"
            f" {self.stolen_s:.1f} s stolen by the hypervisor"
        )


def cpu_time(cpu: int | None) -> CpuTime:
    """CPU `cpu`'s interrupt and steal time so far (every CPU's when None)."""
    name = "cpu" if cpu is None else f"cpu{cpu}"
    for line in Path("/proc/stat").read_text().splitlines():
        fields = line.split()
        if fields[0] == name:
            irq, softirq, steal = (int(f) for f in fields[6:9])
            tick = os.sysconf("SC_CLK_TCK")
            return CpuTime((irq + softirq) / tick, steal / tick)
    raise ValueError(f"/proc/stat has no {name} line")


def isolate(server_pid: int) -> tuple[int, str]:
    """Pin the server (one this bench started) to the last CPU at a real-time priority: no
    process of normal priority then takes it off that core mid-call (ckviz's processes and
    anything else on the machine run beside it, or on the other CPUs while it runs). Returns
    the CPU and a line saying what was done. The kernel still takes a real-time task off its
    core for the rest of a period when it ran for `sched_rt_runtime_us` of it (95% of every
    second by default): a server busy for a whole second loses up to 50 ms then."""
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(server_pid, {cpu})
    try:
        os.sched_setscheduler(server_pid, os.SCHED_FIFO, os.sched_param(1))
    except PermissionError:
        return cpu, f"server pinned to CPU {cpu} at normal priority (SCHED_FIFO needs root)"
    return cpu, f"server pinned to CPU {cpu} at SCHED_FIFO priority 1"


# Commands that touch one element of one key (a read, one member added or removed, the first
# of a range): microseconds of work each, so one logged over a millisecond is time the server
# lost mid-call (taken off its core, or stalled), not work.
_ONE_ELEMENT = {"GET", "SET", "SCARD", "ZCARD", "ZSCORE", "EXISTS", "EXPIRE", "DECR", "INCR"}
_ONE_MEMBER = {"SADD": 3, "SREM": 3, "ZREM": 3, "ZADD": 4}  # words with a single member
_LUA_CLIENT = "?:0"  # SLOWLOG's address for the commands a script runs (Redis 6.2 logs them)


def one_element(words: list[str]) -> bool:
    """Whether a logged command touches one element of one key (its work is microseconds)."""
    verb = words[0].upper() if words else ""
    if verb in _ONE_ELEMENT:
        return True
    if verb in _ONE_MEMBER:
        flags = sum(1 for w in words[2:] if w.upper() in ("NX", "XX", "GT", "LT", "CH"))
        return len(words) - flags == _ONE_MEMBER[verb]
    if verb == "ZRANGE":  # the first or the last member
        return words[2:4] in (["0", "0"], ["-1", "-1"])
    if verb == "ZRANGEBYSCORE":  # the first member in range
        return words[-3:] == ["LIMIT", "0", "1"]
    return False


@dataclass(frozen=True)
class Call:
    """One SLOWLOG entry: its wall time, what it was (a script named), and the whole call;
    a script call also carries the time its own commands logged as lost."""

    ms: float
    name: str
    words: str  # the command as logged, the session token masked: the call's logical point
    lost_ms: float = 0.0  # in the script's single-element commands logged over the threshold
    inside: str = ""  # the slowest of the script's own commands logged, "ms command"
    at: int = 0  # when it was logged (unix seconds)

    @property
    def own_ms(self) -> float:
        """The call's wall time less what it lost inside single-element commands."""
        return self.ms - self.lost_ms


def calls(log: Iterable[Mapping[str, Any]], names: Mapping[str, str]) -> list[Call]:
    """SLOWLOG entries as calls, slowest first, EVALSHA's script named from `names` (sha ->
    name). A script's own commands (logged by the Lua client, just before the script's own
    entry: nothing else runs meanwhile) are not calls of their own: they give the script its
    lost time."""
    found, lost, inside = [], 0.0, (0.0, "")
    for entry in sorted(log, key=lambda e: e["id"]):
        words = _SESSION_TOKEN.sub(":*:", _text(entry["command"])).split()
        ms = entry["duration"] / 1000
        if _text(entry.get("client_address", "")) == _LUA_CLIENT:
            lost += ms if one_element(words) else 0.0
            inside = max(inside, (ms, " ".join(words[:2] + words[2:5])))
            continue
        if words and words[0].upper() == "EVALSHA" and len(words) > 1:
            name = f"EVALSHA {names.get(words[1], words[1][:8])}"
        else:
            name = " ".join(words[:2])
        shown = f"{inside[0]:.2f} ms {inside[1]}" if inside[1] else ""
        found.append(Call(ms, name, " ".join(words), min(lost, ms), shown, entry["start_time"]))
        lost, inside = 0.0, (0.0, "")
    return sorted(found, key=lambda c: c.ms, reverse=True)


def _text(value: bytes | str) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def write_calls(path: Path, found: Iterable[Call]) -> None:
    """The calls as JSON Lines, for a later run's `recurring`."""
    with path.open("w") as out:
        for call in found:
            fields = {"ms": call.ms, "lost_ms": call.lost_ms, "inside": call.inside}
            fields |= {"at": call.at, "name": call.name, "words": call.words}
            out.write(json.dumps(fields) + "\n")


def read_calls(path: Path) -> dict[str, list[float]]:
    """A file `write_calls` wrote: each logical point and the wall ms of the calls logged
    there (several calls can read alike: dequeues in one instant with the same arguments)."""
    points: dict[str, list[float]] = {}
    for line in path.read_text().splitlines():
        call = json.loads(line)
        points.setdefault(call["words"], []).append(call["ms"])
    return points


def recurring(
    found: Iterable[Call], earlier: Mapping[str, list[float]]
) -> list[tuple[Call, list[float]]]:
    """The calls that were logged (over SLOWLOG's threshold) in the earlier run too, with
    the ms of the calls logged there with the same arguments."""
    return [(call, earlier[call.words]) for call in found if call.words in earlier]


def tree_memory_kb(root: int) -> dict[int, tuple[int, int]]:
    """Resident and peak resident kB (VmRSS, VmHWM) of `root` and each process below it."""
    children: dict[int, list[int]] = {}
    memory: dict[int, tuple[int, int]] = {}
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
        rss, hwm = (int(fields.get(f, "0 kB").split()[0]) for f in ("VmRSS", "VmHWM"))
        memory[pid] = (rss, hwm)
    found, stack = {}, [root]
    while stack:
        pid = stack.pop()
        if pid in memory:
            found[pid] = memory[pid]
        stack.extend(children.get(pid, []))
    return found
