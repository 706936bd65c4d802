"""Finding the CK'd base queues under a prefix (SPEC-live 2): `SCAN MATCH P*:ckIndex COUNT n`
(never KEYS) on the server, or on every primary of a cluster (each queue's keys share its
org's hash tag, so each queue lives on one node); then per queue, bounded reads: its variants
(ZCARD ckIndex), its runs queued (the sum of its first variants' ZCARDs, said to be a lower
bound past them), its held runs, its oldest head.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ckviz.errors import RedisUnavailable, ServerRefused, first_line
from ckviz.live.names import INDEX_SUFFIX, VARIANT_INFIX, LiveQueue, queue_of_index

SCAN_COUNT = 400  # keys a SCAN call looks at: ~0.4 ms of a production server each (1000 took ~1 ms)
MAX_QUEUES = 10_000  # queues listed at most
DEPTH_VARIANTS = 50  # variants whose runs are counted per queue, at most
DEPTH_READS = 20_000  # variants whose runs are counted over all the queues found
PACKET = 1000  # commands per round trip
SAMPLE_CALLS = 20  # SCAN calls an empty search looks further with
_GLOB = re.compile(r"([*?\[\]\\])")


@dataclass(frozen=True, slots=True)
class FoundQueue:
    """A CK'd base queue found under the prefix, with its size as one bounded read saw it."""

    queue: LiveQueue
    node: str  # the URL of the node holding it (the given URL, off a cluster)
    keys: int  # variants with runs queued (ZCARD ckIndex)
    depth: int  # runs queued over its first DEPTH_VARIANTS variants
    depth_bounded: bool  # more variants than were counted: depth is a lower bound
    held: int  # runs the queue holds (SCARD Q:currentConcurrency)
    oldest_head_ms: float | None  # the lowest ckIndex score (None: empty)
    vtime: bool  # Q:ckVtime exists

    def line(self, now_ms: float) -> str:
        """One line of the list `watch` prints without --queue."""
        depth = f"{self.depth}+" if self.depth_bounded else str(self.depth)
        age = (
            "empty"
            if self.oldest_head_ms is None
            else f"oldest head {max(0.0, now_ms - self.oldest_head_ms) / 1000:.1f}s"
        )
        mode = "  vtime" if self.vtime else ""
        return (
            f"{self.queue.shown}  keys {self.keys}  queued {depth}  held {self.held}  {age}{mode}"
        )


def glob_escaped(text: str) -> str:
    """`text` as a SCAN MATCH pattern matching itself only."""
    return _GLOB.sub(r"\\\1", text)


def index_keys(client: redis.Redis, prefix: str) -> Iterator[str]:
    """Every ckIndex key under `prefix` on one node, by SCAN with COUNT."""
    pattern = f"{glob_escaped(prefix)}*{INDEX_SUFFIX}"
    cursor = 0
    while True:
        cursor, keys = client.scan(cursor, match=pattern, count=SCAN_COUNT)
        yield from (str(k) for k in keys)
        if int(cursor) == 0:
            return


def find_queues(clients: Sequence[tuple[str, redis.Redis]], prefix: str) -> list[FoundQueue]:
    """The CK'd queues under `prefix` on each (node URL, client), in name order."""
    found: list[FoundQueue] = []
    try:
        for node, client in clients:
            queues: list[LiveQueue] = []
            for key in index_keys(client, prefix):
                queue = queue_of_index(key, prefix)
                if queue is not None and len(queues) < MAX_QUEUES:
                    queues.append(queue)
            found += _sized(client, node, sorted(queues, key=lambda q: q.base))
    except redis.exceptions.NoPermissionError as exc:
        raise ServerRefused(f"the watched server refused a read: {first_line(exc)}") from None
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise RedisUnavailable(f"lost the watched server: {first_line(exc)}") from None
    return sorted(found, key=lambda f: (f.queue.base, f.node))


def _sized(client: redis.Redis, node: str, queues: list[LiveQueue]) -> list[FoundQueue]:
    """Each queue's size, in pipelined round trips of at most PACKET commands each: its
    variants, held runs, oldest head, and the runs of its first variants (DEPTH_VARIANTS, fewer
    each when there are many queues: DEPTH_READS in all)."""
    per_queue = max(1, min(DEPTH_VARIANTS, DEPTH_READS // max(1, len(queues))))
    first = _pipelined(
        client,
        [
            command
            for q in queues
            for command in (
                ("ZCARD", q.ck_index),
                ("ZRANGE", q.ck_index, 0, per_queue - 1, "WITHSCORES"),
                ("SCARD", q.queue_held),
                ("EXISTS", q.key(":ckVtime")),
            )
        ],
    )
    heads = [_flat_pairs(_or(first[4 * i + 1], [])) for i in range(len(queues))]
    depths = iter(
        _pipelined(
            client,
            [
                ("ZCARD", q.prefix + member)
                for q, own in zip(queues, heads, strict=True)
                for member, _ in own
            ],
        )
    )
    found = []
    for i, q in enumerate(queues):
        keys, _, held, vtime = first[4 * i : 4 * i + 4]
        depth = sum(int(_or(next(depths), 0)) for _ in heads[i])
        if isinstance(keys, Exception) or not _indexes_variants(q, heads[i]):
            continue  # not a CK'd queue's ckIndex
        held = _or(held, 0)  # a key of another type than the layout's: counted as empty
        oldest = float(heads[i][0][1]) if heads[i] else None
        bounded = int(keys) > len(heads[i])
        found.append(FoundQueue(q, node, int(keys), depth, bounded, int(held), oldest, bool(vtime)))
    return found


def _indexes_variants(queue: LiveQueue, members: Sequence[tuple[str, Any]]) -> bool:
    """Whether `members` (the key's first) are variants of `queue`: a variant of a concurrency
    key ending in `:ckIndex` (`Q:ck:x:ckIndex`) holds run ids and is found by the same SCAN,
    as a queue whose name holds `:ck:` (which a real one may: its members tell)."""
    return VARIANT_INFIX not in queue.name or any(queue.is_member(m) for m, _ in members)


def _pipelined(client: redis.Redis, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
    """The replies of `commands`, sent PACKET at a time (a server never gets a burst of a
    whole keyspace's reads at once); a command the server refused (WRONGTYPE) gives its
    error as its reply, for the caller to skip or count as empty."""
    replies: list[Any] = []
    for start in range(0, len(commands), PACKET):
        pipe = client.pipeline(transaction=False)
        for args in commands[start : start + PACKET]:
            pipe.execute_command(*args)  # type: ignore[no-untyped-call]
        replies += pipe.execute(raise_on_error=False)
    for reply in replies:
        if isinstance(reply, Exception) and not isinstance(reply, redis.ResponseError):
            raise reply
        if isinstance(reply, redis.exceptions.NoPermissionError):
            raise reply
    return replies


def _or(reply: Any, instead: Any) -> Any:
    """A reply, or `instead` where the server refused it (WRONGTYPE: a key of another type
    than the run queue's layout has under that name)."""
    return instead if isinstance(reply, Exception) else reply


def _flat_pairs(reply: Sequence[Any]) -> list[tuple[str, Any]]:
    """A ZRANGE WITHSCORES reply as (member, score) pairs, flat or paired by the client."""
    if reply and isinstance(reply[0], list | tuple):
        return [(str(m), s) for m, s in reply]
    return [(str(m), s) for m, s in zip(reply[0::2], reply[1::2], strict=True)]


def matching(found: Sequence[FoundQueue], text: str) -> list[FoundQueue]:
    """The queues `--queue TEXT` names: its exact name or base, else those containing it."""
    exact = [f for f in found if text in (f.queue.name, f.queue.base)]
    return exact or [f for f in found if text in f.queue.base]


def nothing_found(clients: Sequence[tuple[str, redis.Redis]], prefix: str) -> str:
    """Why no queue was found, in a line: what is under the prefix, and the prefixes other
    ckIndex keys on the server have (a bounded look: a few SCAN calls, never KEYS)."""
    under = _sample(clients, f"{glob_escaped(prefix)}*", 3)
    others = sorted({k.split("{org:", 1)[0] for k in _sample(clients, f"*{INDEX_SUFFIX}", 5)})
    seen = f"found {len(under)}+ other keys under it" if under else "nothing is under it"
    where = f"; ckIndex keys are under {', '.join(repr(p) for p in others)}" if others else ""
    return f"no CK'd queue under the prefix {prefix!r}: {seen}{where}"


def _sample(clients: Sequence[tuple[str, redis.Redis]], pattern: str, want: int) -> list[str]:
    found: list[str] = []
    for _, client in clients:
        cursor, calls = 0, 0
        while len(found) < want and calls < SAMPLE_CALLS:
            cursor, keys = client.scan(cursor, match=pattern, count=SCAN_COUNT)
            found += [str(k) for k in keys]
            calls += 1
            if int(cursor) == 0:
                break
    return found[:want]
