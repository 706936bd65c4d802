"""The keys under a prefix (a run's namespace, a cell's, a whole session's): found, counted
and deleted with SCAN, never KEYS and never a flush, so another tenant's keys are never read
or touched."""

from __future__ import annotations

from collections.abc import Iterator

import redis

from ckviz.store.cluster import Keyspace

SCAN_COUNT = 1000  # keys a SCAN call looks at
UNLINK_BATCH = 500  # keys one UNLINK deletes (on a cluster: its client splits it per slot)
# Deleting on one server: each SCAN page is UNLINKed whole, in the same round trip as the next
# page's SCAN. A quit at 10,000 keys leaves some 25,000 keys to delete: 71 round trips of
# 1,000 scanned and 500 unlinked took 0.3 s, most of it waiting on the replies one by one.
DELETE_SCAN_COUNT = 10_000


def keys_under(client: Keyspace, prefix: str) -> Iterator[str]:
    """Every key that starts with `prefix`; SCAN-based."""
    for name in client.scan_iter(match=_glob_escape(prefix) + "*", count=SCAN_COUNT):
        if name.startswith(prefix):  # belt and braces: the glob is ours, but check anyway
            yield str(name)


def first_key(client: Keyspace, prefix: str) -> str | None:
    """Some key that starts with `prefix`, or None."""
    return next(keys_under(client, prefix), None)


def count_prefix(client: Keyspace, prefix: str) -> int:
    """How many keys start with `prefix`."""
    return sum(1 for _ in keys_under(client, prefix))


def delete_prefix(client: Keyspace, prefix: str) -> int:
    """UNLINK every key that starts with `prefix` (and nothing else)."""
    if isinstance(client, redis.Redis):
        return _delete_pipelined(client, prefix)
    deleted = 0
    batch: list[str] = []
    for name in keys_under(client, prefix):
        batch.append(name)
        if len(batch) >= UNLINK_BATCH:
            deleted += client.unlink(*batch)
            batch.clear()
    if batch:
        deleted += client.unlink(*batch)
    return deleted


def _delete_pipelined(client: redis.Redis, prefix: str) -> int:
    """delete_prefix on one server: SCAN page after page, each page's keys UNLINKed in the
    round trip that asks for the next page (a key SCAN has returned stays deleted, and the
    keys still to come are unaffected by the deletes)."""
    pattern, deleted = _glob_escape(prefix) + "*", 0
    pipe = client.pipeline(transaction=False)
    pipe.scan(0, match=pattern, count=DELETE_SCAN_COUNT)
    while True:
        *unlinked, (cursor, names) = pipe.execute()
        deleted += sum(map(int, unlinked))
        mine = [name for name in names if name.startswith(prefix)]  # the glob is ours; check
        if mine:
            pipe.unlink(*mine)
        if int(cursor) == 0:
            return deleted + (sum(map(int, pipe.execute())) if mine else 0)
        pipe.scan(cursor, match=pattern, count=DELETE_SCAN_COUNT)


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
