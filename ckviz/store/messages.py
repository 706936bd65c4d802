"""What a run's calls name: the KEYS every enqueue and ack script starts with, and the JSON
its message key holds."""

from __future__ import annotations

import json
from typing import Any

from ckviz.model.queue import PlannedRun
from ckviz.store.keys import ORG, KeyLayout


def run_keys(k: KeyLayout, run_id: str, key: str) -> tuple[str, ...]:
    """The KEYS every enqueue and ack script starts with, for one run of `key`."""
    return (
        k.message(run_id),
        k.ck_queue(key),
        k.env_queue,
        k.ck_index,
        k.master_queue,
        k.ck_held(key),
        k.env_held,
    )


def message_payload(run: PlannedRun, timestamp: int, ttl_expires_at: int | None = None) -> str:
    """The JSON a run's message key holds (the dequeue reads its concurrencyKey back; a run
    with a TTL also carries the org and `ttlExpiresAt`, which the dequeue and sweep read)."""
    message: dict[str, Any] = {
        "runId": run.run_id,
        "concurrencyKey": run.key,
        "queue": "task/base",
        "timestamp": timestamp,
    }
    if ttl_expires_at is not None:
        message |= {"orgId": ORG, "attempt": 0, "ttlExpiresAt": ttl_expires_at}
    return _compact(message)


# json.dumps builds an encoder per call when given options: one per enqueue, a tenth of its
# client time
_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
