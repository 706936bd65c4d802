"""What a run's calls name: the KEYS every enqueue and ack script starts with, and the JSON
its message key holds; the enqueue and ack calls themselves, packed mostly ahead."""

from __future__ import annotations

import json
from typing import Any

from ckviz.model.arithmetic import HELD_SUFFIX
from ckviz.model.queue import PlannedRun
from ckviz.store.keys import (
    CK_MEMBER_PREFIX,
    MASTER_MEMBER,
    MESSAGE_PREFIX,
    ORG,
    KeyLayout,
    ck_member,
)
from ckviz.store.lifecycle import COUNTER_TTL_S, LifecycleKeys
from ckviz.store.packing import Packed, bulk_strings
from ckviz.store.scripts import Door

RUN_KEYS_KEPT = 256  # concurrency keys whose calls' parts a queue keeps packed (RunCalls)


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


_KeyParts = tuple[tuple[str, ...], tuple[Any, ...], bytes, bytes]  # KEYS, ARGV tail: packed


class RunCalls(dict[str, _KeyParts]):
    """A queue's enqueue and ack calls through its door, two per dequeued run. Besides the run
    (its id, its message key, an enqueue's timestamp and payload), such a call names only its
    concurrency key and the queue (after the usual KEYS, the lengthCounter and the door's
    state keys; after the call's own ARGV, the key prefix and counter TTL an enqueue's lazy
    init takes, then the door's): those KEYS and that ARGV tail are packed once per key, and
    joined with the run's own (hiredis packed all 13-25 arguments anew for each call). Each
    call's bytes are those hiredis packs of its arguments. Only the first RUN_KEYS_KEPT keys
    are kept (among 10,000 keys of two runs each, keeping the last ones packed and dropped a
    key's parts between its calls, and keeping them all made each call slower than hiredis:
    20 MB of parts); another key's calls are packed whole by hiredis (`pack`), as before.
    """

    def __init__(self, k: KeyLayout, door: Door, state_keys: tuple[str, ...]) -> None:
        super().__init__()
        self._layout = k
        self._tail_keys = (LifecycleKeys(k).length_counter, *state_keys)  # after the usual 7
        self._argv = (k.prefix, COUNTER_TTL_S, *door.argv)
        self._message = k.prefix + MESSAGE_PREFIX  # then the run id
        self._message_bytes = self._message.encode()
        self._message_size = len(self._message_bytes)
        numkeys = 7 + len(self._tail_keys)
        argc = 3 + numkeys + 3 + len(self._argv)  # an ack's: its ARGV is the run id, then the tail
        self._ack = _head(argc, ("EVALSHA", door.ack.sha, numkeys))
        self._enqueue = _head(argc + 2, ("EVALSHA", door.enqueue.sha, numkeys))

    def _kept(self, key: str) -> _KeyParts:
        keys = (*run_keys(self._layout, "", key)[1:], *self._tail_keys)  # after the message's
        argv = (ck_member(key), MASTER_MEMBER, *self._argv)  # after the run id and its own
        parts = self[key] = (keys, argv, bulk_strings(keys), bulk_strings(argv))
        return parts

    def ack(self, run_id: str, key: str) -> tuple[Any, ...]:
        parts = self.get(key)
        if parts is None:
            if len(self) >= RUN_KEYS_KEPT:  # packed whole by hiredis with the trip (`pack`)
                keys = (*run_keys(self._layout, run_id, key), *self._tail_keys)
                return (*self._ack[0], *keys, run_id, ck_member(key), MASTER_MEMBER, *self._argv)
            parts = self._kept(key)
        keys, argv, _, _ = parts
        args, head = self._ack
        command = Packed((*args, self._message + run_id, *keys, run_id, *argv))
        command.resp = self._resp(head, run_id.encode(), b"", parts)
        return command

    def enqueue(self, run_id: str, key: str, timestamp: int, payload: str) -> tuple[Any, ...]:
        parts = self.get(key)
        args, head = self._enqueue
        message = self._message + run_id
        if parts is None:
            if len(self) >= RUN_KEYS_KEPT:  # packed whole by hiredis with the trip (`pack`)
                keys = (*run_keys(self._layout, run_id, key), *self._tail_keys)
                tail = (ck_member(key), MASTER_MEMBER, *self._argv)
                return (*args, *keys, run_id, timestamp, payload, *tail)
            parts = self._kept(key)
        keys, argv, _, _ = parts
        command = Packed((*args, message, *keys, run_id, timestamp, payload, *argv))
        stamp, text = str(timestamp).encode(), payload.encode()
        own = b"$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(stamp), stamp, len(text), text)
        command.resp = self._resp(head, run_id.encode(), own, parts)
        return command

    def _resp(self, head: bytes, rid: bytes, own: bytes, parts: _KeyParts) -> bytes:
        """A call's bytes: `head` (its header's `$` ends it) with the message key's bulk string,
        the key's KEYS, the run id, the call's own ARGV (`own`, packed) and the key's tail."""
        _, _, keys_resp, argv_resp = parts
        return b"%s%d\r\n%s%s\r\n%s$%d\r\n%s\r\n%s%s" % (
            head,
            self._message_size + len(rid),
            self._message_bytes,
            rid,
            keys_resp,
            len(rid),
            rid,
            own,
            argv_resp,
        )


def _head(argc: int, args: tuple[Any, ...]) -> tuple[tuple[Any, ...], bytes]:
    """A call's first arguments, and its RESP header (`argc` arguments in all) with them, up
    to the `$` of the next argument's bulk string."""
    return args, b"*%d\r\n%s$" % (argc, bulk_strings(args))
