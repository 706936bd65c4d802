"""The one queue a `--queue` text names, for watch, capture and whatif: attached (one client per
primary on a cluster), found by discovery (SCAN, never KEYS), or one line saying why not."""

from __future__ import annotations

import redis

from ckviz.errors import UsageError, echo
from ckviz.live.connect import attach
from ckviz.live.discover import FoundQueue, find_queues, matching, nothing_found

LISTED = 5  # queues a refusal names


def find_queue(url: str, prefix: str, text: str, command: str) -> tuple[redis.Redis, FoundQueue]:
    """The client of the node holding the queue `text` names, and the queue."""
    nodes = attach(url)
    found = find_queues(nodes, prefix)
    if not found:
        raise UsageError(f"{command}: {nothing_found(nodes, prefix)}")
    chosen = named_one(found, text, command)
    return dict(nodes)[chosen.node], chosen


def named_one(found: list[FoundQueue], text: str, command: str) -> FoundQueue:
    """The one queue `--queue text` names among those found; else one line naming them (a
    text that names several is refused, never guessed: the picker is for no --queue)."""
    named = matching(found, text)
    if len(named) == 1:
        return named[0]
    if not named:
        listed = _listed([f.queue.name for f in found])
        raise UsageError(f"{command}: no queue matches --queue {echo(text)!r}; found {listed}")
    listed = _listed([f.queue.base for f in named])
    raise UsageError(
        f"{command}: --queue {echo(text)!r} matches {len(named)} queues: {listed}; "
        "give more of one's name, or its key"
    )


def _listed(names: list[str]) -> str:
    shown = ", ".join(repr(echo(name)) for name in names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")
