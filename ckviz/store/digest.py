"""What `inspect.lua` reports: the run queue's counts, for the invariant checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ckviz.store.keys import key_of_member


@dataclass(frozen=True, slots=True)
class CkQueueCounts:
    """One CK queue as Redis holds it."""

    key: str
    in_index: bool
    queued: int  # ZCARD of the CK queue
    held: int  # SCARD of its concurrency set


@dataclass(frozen=True, slots=True)
class QueueDigest:
    """The env's counts plus every CK queue in ckIndex or named by the driver."""

    env_held: int
    env_queued: int
    master_has_member: bool
    index_size: int
    queues: dict[str, CkQueueCounts]


def decode_digest(reply: list[Any]) -> QueueDigest:
    """The inspect script's flat reply as a `QueueDigest`."""
    env_held, env_queued, master, index_size = (int(v) for v in reply[:4])
    queues: dict[str, CkQueueCounts] = {}
    for i in range(4, len(reply), 4):
        key = key_of_member(reply[i])
        queues[key] = CkQueueCounts(key, bool(reply[i + 1]), int(reply[i + 2]), int(reply[i + 3]))
    return QueueDigest(int(env_held), int(env_queued), bool(master), int(index_size), queues)
