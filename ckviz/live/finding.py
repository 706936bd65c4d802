"""The one queue a `--queue` text names, for capture and whatif: attached (one client per
primary on a cluster), found by discovery (SCAN, never KEYS), or one line saying why not."""

from __future__ import annotations

import redis

from ckviz.errors import UsageError, echo
from ckviz.live.connect import attach
from ckviz.live.discover import FoundQueue, find_queues, matching, nothing_found


def find_queue(url: str, prefix: str, text: str, command: str) -> tuple[redis.Redis, FoundQueue]:
    """The client of the node holding the queue `text` names, and the queue."""
    nodes = attach(url)
    found = find_queues(nodes, prefix)
    if not found:
        raise UsageError(f"{command}: {nothing_found(nodes, prefix)}")
    named = matching(found, text)
    if len(named) == 1:
        return dict(nodes)[named[0].node], named[0]
    if not named:
        listed = ", ".join(repr(f.queue.name) for f in found[:5])
        raise UsageError(f"{command}: no queue matches --queue {echo(text)!r}; found {listed}")
    listed = ", ".join(repr(f.queue.base) for f in named[:5])
    raise UsageError(f"{command}: --queue {echo(text)!r} matches {len(named)} queues: {listed}")
