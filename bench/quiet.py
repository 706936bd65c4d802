"""Measuring in the quiet moments of a shared machine (Linux: /proc/stat).

On two cores shared with other work, a run that overlaps someone's test suite says more
about that suite than about ckviz, and not only in its wall time: a round trip across idle
cores wakes the other core (slow under a hypervisor), one beside a busy process does not,
so even CPU seconds move with the load. A bench that can wait keeps only what ran alone:
it waits for a quiet second before a round, counts the CPU the whole machine used during
each go, and drops the round when others used more than a little of it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

STAT = Path("/proc/stat")
QUIET_SHARE = 0.12  # of one core, over a second: what counts as nothing else running
OTHERS_MAX_S = 0.25  # CPU seconds others may use during a round's go before it is dropped


def available() -> bool:
    return STAT.exists()


def machine_busy_s() -> float:
    """CPU seconds every core has spent busy (not idle, not waiting on I/O) since boot."""
    fields = [int(f) for f in STAT.read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def wait_for_quiet(deadline: float, window_s: float = 1.0) -> bool:
    """Block until a `window_s` stretch in which the machine was nearly idle; False if
    `deadline` (time.monotonic()) passes first."""
    while time.monotonic() < deadline:
        before = machine_busy_s()
        time.sleep(window_s)
        if machine_busy_s() - before < QUIET_SHARE * window_s:
            return True
    return False


class Others:
    """The CPU the rest of the machine used while a go ran: the machine's busy seconds
    minus the go's own (its processes' CPU, as the caller measured it)."""

    def __init__(self) -> None:
        self.start = machine_busy_s()

    def used(self, ours_s: float) -> float:
        return max(0.0, machine_busy_s() - self.start - ours_s)
