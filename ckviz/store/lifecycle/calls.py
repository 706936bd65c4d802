"""The run lifecycle's calls on a trip (mixed into `runqueue.Trip`): nack, dead-letter, the
enqueue with a TTL or a fast-path offer, and the TTL sweep, each through the queue's door.

Every call names the script's usual KEYS and ARGV (listed at the top of each flag-off script
in `lua/`), then the door's state keys and its ARGV tail, as enqueue, dequeue and ack do; a
discipline's own variant of a path takes the same usual KEYS and ARGV.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ckviz.model.arithmetic import BURST_FACTOR, DEFAULT_QUEUE_LIMIT
from ckviz.store.keys import MASTER_MEMBER, MESSAGE_PREFIX, KeyLayout, ck_member
from ckviz.store.lifecycle import (
    COUNTER_TTL_S,
    SWEEP_BATCH,
    VISIBILITY_TIMEOUT_MS,
    LifecycleKeys,
    ttl_member,
)
from ckviz.store.messages import run_keys
from ckviz.store.scripts import Decoder, Door, LuaScript


class QueueSide(Protocol):
    """What the calls read of the run queue they go through (its layout, door and limits)."""

    @property
    def keys(self) -> KeyLayout: ...
    @property
    def lifecycle(self) -> LifecycleKeys: ...
    @property
    def door(self) -> Door: ...
    @property
    def state_keys(self) -> tuple[str, ...]: ...
    @property
    def ttl_system(self) -> bool: ...
    @property
    def env_limit(self) -> int: ...


class Calling(Protocol):
    """The trip these calls are mixed into: its queue, and how it adds a script call."""

    @property
    def _queue(self) -> QueueSide: ...

    def call(
        self, script: LuaScript, keys: Sequence[str], argv: Sequence[Any], decode: Decoder
    ) -> int: ...


def _slot_keys(q: QueueSide, key: str, run_id: str) -> tuple[str, ...]:
    """A run's usual KEYS (enqueue's and ack's), then its two currentDequeued sets."""
    life = q.lifecycle
    return (*run_keys(q.keys, run_id, key), life.ck_dequeued(key), life.env_dequeued)


def _ok(reply: Any) -> None:
    return None


def _fast_path_taken(reply: Any) -> bool:
    return bool(reply == 1)


def _run_ids(reply: Any) -> list[str]:
    return [str(r) for r in reply]


class LifecycleCalls:
    """What a trip adds for the lifecycle; each returns the reply's slot in `send()`'s list."""

    def nack(self: Calling, key: str, run_id: str, payload: str, score: int) -> int:
        """Requeue a held run at its retry `score` with the client's new `payload` (its
        slots freed at once; a discipline keeping its order in Redis re-registers its key)."""
        q = self._queue
        life = q.lifecycle
        keys = (*_slot_keys(q, key, run_id), life.length_counter, life.running_counter)
        argv = (run_id, ck_member(key), payload, score, MASTER_MEMBER, q.keys.prefix)
        door = q.door
        return self.call(door.nack, (*keys, *q.state_keys), (*argv, COUNTER_TTL_S, *door.argv), _ok)

    def dead_letter(self: Calling, key: str, run_id: str) -> int:
        """File a run under the env's deadLetter zset (Redis TIME, seconds) and free its
        slots; its message keeps the pre-nack payload."""
        q = self._queue
        life = q.lifecycle
        keys = (
            *_slot_keys(q, key, run_id),
            life.length_counter,
            life.running_counter,
            life.dead_letter,
        )
        argv = (run_id, ck_member(key), MASTER_MEMBER, *q.door.argv)
        return self.call(q.door.dead_letter, (*keys, *q.state_keys), argv, _ok)

    def enqueue_lifecycle(
        self: Calling,
        key: str,
        run_id: str,
        timestamp: int,
        payload: str,
        ttl_expires_at: int | None,
        fast_path_at: int | None,
    ) -> int:
        """The enqueue with a TTL or a fast-path offer; its reply: whether the fast path was
        taken (the run is then held, and in no queue)."""
        q = self._queue
        life = q.lifecycle
        keys = (
            *_slot_keys(q, key, run_id),
            life.length_counter,
            life.ttl_queue,
            q.keys.env_limit,
            q.keys.queue_limit,
            life.worker_queue,
            q.keys.env_burst,
        )
        expires: int | str = "" if ttl_expires_at is None else ttl_expires_at
        member = ttl_member(key, run_id) if expires != "" and q.ttl_system else ""
        argv = (
            run_id,
            timestamp,
            payload,
            ck_member(key),
            MASTER_MEMBER,
            q.keys.prefix,
            COUNTER_TTL_S,
            expires,
            member,
            "0" if fast_path_at is None else "1",
            timestamp if fast_path_at is None else fast_path_at,
            q.env_limit,
            BURST_FACTOR,
            DEFAULT_QUEUE_LIMIT,
            MESSAGE_PREFIX + run_id,
        )
        door = q.door
        return self.call(
            door.enqueue_ttl, (*keys, *q.state_keys), (*argv, *door.argv), _fast_path_taken
        )

    def expire_ttl(self: Calling, now: int, batch: int = SWEEP_BATCH) -> int:
        """The sweep of the TTL shard: entries due by `now`, at most `batch`; its reply: the
        run ids it expired, in order (ties by member bytes)."""
        q = self._queue
        life = q.lifecycle
        keys = (life.ttl_queue, life.ttl_jobs, life.ttl_job_items, *q.state_keys)
        argv = (q.keys.prefix, now, batch, 1, VISIBILITY_TIMEOUT_MS, *q.door.argv)
        return self.call(q.door.expire_ttl, keys, argv, _run_ids)
