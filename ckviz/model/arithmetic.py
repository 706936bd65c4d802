"""The dequeue arithmetic ckviz shares with the Lua scripts, in one place.

The scripts get these numbers as ARGV from here (never their own copies), and the Python side
(the driver, the invariant checks, the panes) computes with the same ones.
"""

from __future__ import annotations

import math

SCAN_FACTOR = 3  # dequeue.lua looks at up to budget * SCAN_FACTOR ckIndex entries
DEFAULT_QUEUE_LIMIT = 1_000_000  # a queue's concurrency limit when `B:concurrency` is unset
HELD_SUFFIX = ":currentConcurrency"  # a CK queue's (or the env's) set of held runs
BURST_FACTOR = "1.0"  # the env limit's burst multiplier, as the reference passes it


def queue_limit(per_key_cap: int | None, env_limit: int) -> int:
    """The per-key limit dequeue.lua enforces: the queue's own limit, never above the env's."""
    return min(per_key_cap or DEFAULT_QUEUE_LIMIT, env_limit)


def batch_room(max_count: int, held: int, total_cap: int | None) -> int:
    """Runs one dequeue call may ask for: a batch may not carry the held runs past the cap."""
    return max_count if total_cap is None else min(max_count, total_cap - held)


def dequeue_budget(max_count: int, env_limit: int, held: int, total_cap: int | None) -> int:
    """Runs the next dequeue can take at most (0 when the env or the total cap is full)."""
    if total_cap is not None and held >= total_cap:
        return 0  # the driver does not even call the script
    limit = math.floor(env_limit * float(BURST_FACTOR))
    return max(0, min(batch_room(max_count, held, total_cap), limit - held))


def scan_window(max_count: int, env_limit: int, held: int, total_cap: int | None) -> int:
    """How many ckIndex entries the next dequeue looks at."""
    return dequeue_budget(max_count, env_limit, held, total_cap) * SCAN_FACTOR


def rescore_scores(count: int, now: int) -> list[int]:
    """The scores a rescore writes, best first: member i of n gets now - (n - i), all below
    `now` so the dequeue's `ZRANGEBYSCORE -inf now` sees every one."""
    return list(range(now - count, now))  # now - (count - i) for i in range(count)
