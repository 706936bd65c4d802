"""What a run's calls name: the KEYS every enqueue and ack script starts with, and the JSON
its message key holds."""

from __future__ import annotations

import json
from typing import Any

from ckviz.model.arithmetic import HELD_SUFFIX
from ckviz.model.queue import PlannedRun
from ckviz.store.keys import CK_MEMBER_PREFIX, MESSAGE_PREFIX, ORG, KeyLayout


def run_keys(k: KeyLayout, run_id: str, key: str) -> tuple[str, ...]:
    """The KEYS every enqueue and ack script starts with, for one run of `key`: the layout's
    `message`, `ck_queue` and `ck_held`, spelled here without their five calls (two of these
    per dequeued run; a unit test holds the spellings equal)."""
    ck_queue = k.prefix + CK_MEMBER_PREFIX + key
    return (
        k.prefix + MESSAGE_PREFIX + run_id,
        ck_queue,
        k.env_queue,
        k.ck_index,
        k.master_queue,
        ck_queue + HELD_SUFFIX,
        k.env_held,
    )


def message_payload(run: PlannedRun, timestamp: int, ttl_expires_at: int | None = None) -> str:
    """The JSON a run's message key holds (the dequeue reads its concurrencyKey back; a run
    with a TTL also carries the org and `ttlExpiresAt`, which the dequeue and sweep read)."""
    if ttl_expires_at is None and type(timestamp) is int:  # every plain enqueue's
        run_id, key = _string(run.run_id), _string(run.key)
        return f'{{"runId":{run_id},"concurrencyKey":{key},{_PLAIN_TAIL}{timestamp}}}'
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
# A plain run's message, the same text `_compact` makes of it (a unit test holds them equal),
# joined from its strings as that encoder writes them: the encoder itself is set up anew on
# every call, per enqueue the larger part of the message's cost.
_string = json.encoder.encode_basestring
_PLAIN_TAIL = '"queue":"task/base","timestamp":'
