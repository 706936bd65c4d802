"""The keys under a prefix (a run's namespace, a cell's, a whole session's): found, counted
and deleted with SCAN, never KEYS and never a flush, so another tenant's keys are never read
or touched."""

from __future__ import annotations

from collections.abc import Iterator

from ckviz.store.cluster import Keyspace

SCAN_COUNT = 1000  # keys a SCAN call looks at
UNLINK_BATCH = 500  # keys one UNLINK deletes


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


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
