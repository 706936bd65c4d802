"""A producer on the real layout (SPEC-live 1), for the tests and the bench: given a prefix
and an org, project, env and queue, it runs ckviz's own scripts (the flag-off run queue's, or
vtime HEAD's when the flag is on) with KEYS and ARGV spelled from those ids, and adds what a
production run queue writes besides: the queue's own held and dequeued sets, the runs'
dequeued sets, the running counter and the worker queue's list.

ckviz's engine spells one fixed layout (`store/keys.py`, a hot path kept as it is); this door
is separate, and slower, and only the tests and the bench go through it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

import redis

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.vtime.door import vtime_door
from ckviz.disciplines.vtime.replies import vtime_dequeue
from ckviz.live.names import DEQUEUED_SUFFIX, LiveQueue, jump_hash
from ckviz.live.reading import DEFAULT_ENV_LIMIT
from ckviz.model.arithmetic import BURST_FACTOR, DEFAULT_QUEUE_LIMIT, HELD_SUFFIX, SCAN_FACTOR
from ckviz.store.lifecycle import COUNTER_TTL_S
from ckviz.store.replies import dequeued_runs
from ckviz.store.scripts import LUA_ORDER, Door

SHARDS = 2  # master queue shards, as the reference's tests run
WORKER_QUEUE = "main"


def shard_of(env: str, shards: int = SHARDS) -> int:
    """The master queue shard of an env: the jump hash of its id over the shard count. The
    id is made a 64-bit number by its SHA-256's first 8 bytes (the reference's own string hash
    may differ: a watcher finds the shards by SCAN and never works this out)."""
    return jump_hash(int.from_bytes(hashlib.sha256(env.encode()).digest()[:8], "big"), shards)


class Producer:
    """Runs enqueued, dequeued and acked on one live-layout queue, through ckviz's scripts."""

    def __init__(
        self,
        client: redis.Redis,
        queue: LiveQueue,
        vtime: bool = False,
        env_limit: int | None = None,
        queue_limit: int | None = None,
        shards: int = SHARDS,
    ) -> None:
        self.client, self.queue = client, queue
        self.door: Door = vtime_door("head", Tuning()) if vtime else LUA_ORDER
        self.vtime = vtime
        self.env_limit, self.queue_limit = env_limit, queue_limit
        q = queue
        self.master_queue = f"{q.prefix}masterQueue:shard:{shard_of(q.env, shards)}"
        self.state_keys = tuple(q.key(f":{name}") for name in self.door.state_keys)
        self.worker_queue = f"{q.prefix}workerQueue:{WORKER_QUEUE}"
        self.ttl_queue = f"{q.prefix}ttl:shard:{shard_of(q.env, shards)}"

    def open(self) -> None:
        """Load the scripts and set the limits that are given."""
        for script in self.door.scripts:
            self.client.script_load(script.source)
        if self.env_limit is not None:
            self.client.set(self.queue.env_key(":concurrency"), self.env_limit)
        if self.queue_limit is not None:
            self.client.set(self.queue.key(":concurrency"), self.queue_limit)

    def payload(
        self, run_id: str, key: str, timestamp: int, ttl_expires_at: int | None = None
    ) -> str:
        """The run's message, with every field the reference's carries."""
        q = self.queue
        ttl = {} if ttl_expires_at is None else {"ttlExpiresAt": ttl_expires_at}
        return json.dumps(
            {
                "runId": run_id,
                "taskIdentifier": q.name.rsplit("/", 1)[-1],
                "orgId": q.org,
                "projectId": q.project,
                "environmentId": q.env,
                "environmentType": "PRODUCTION",
                "queue": q.member(key),
                "concurrencyKey": key,
                "timestamp": timestamp,
                "attempt": 0,
                "workerQueue": WORKER_QUEUE,
                "version": "2",
                **ttl,
            },
            separators=(",", ":"),
        )

    def enqueue(
        self, run_id: str, key: str, timestamp: int, ttl_expires_at: int | None = None
    ) -> None:
        """The slow-path enqueue (no fast path offered), with a TTL if given."""
        self._call(*self._enqueue_call(run_id, key, timestamp, ttl_expires_at))

    def enqueue_many(self, runs: Iterable[tuple[str, str, int]], chunk: int = 1000) -> None:
        """Many enqueues (run id, key, timestamp), pipelined `chunk` at a time (the bench's
        100,000 keys)."""
        pipe = self.client.pipeline(transaction=False)
        for n, run in enumerate(runs, 1):
            sha, keys, argv = self._enqueue_call(*run)
            pipe.evalsha(sha, len(keys), *keys, *argv)
            if n % chunk == 0:
                pipe.execute()
        pipe.execute()

    def _enqueue_call(
        self, run_id: str, key: str, timestamp: int, ttl_expires_at: int | None = None
    ) -> tuple[str, tuple[Any, ...], tuple[Any, ...]]:
        q, door = self.queue, self.door
        variant = q.variant(key)
        keys = (
            *self._run_keys(run_id, key),
            variant + DEQUEUED_SUFFIX,
            q.env_key(DEQUEUED_SUFFIX),
            q.key(":lengthCounter"),
            self.ttl_queue,
            q.env_key(":concurrency"),
            q.key(":concurrency"),
            self.worker_queue,
            q.env_key(":concurrencyBurstFactor"),
            *self.state_keys,
        )
        argv = (
            run_id,
            timestamp,
            self.payload(run_id, key, timestamp, ttl_expires_at),
            q.member(key),
            q.master_member,
            q.prefix,
            COUNTER_TTL_S,
            "" if ttl_expires_at is None else ttl_expires_at,
            "" if ttl_expires_at is None else f"{q.member(key)}|{run_id}|{q.org}",
            "0",
            timestamp,
            DEFAULT_ENV_LIMIT,
            BURST_FACTOR,
            DEFAULT_QUEUE_LIMIT,
            q.message_prefix + run_id,
            *door.argv,
        )
        return door.enqueue_ttl.sha, keys, argv

    def dequeue(self, max_count: int, now: int) -> list[tuple[str, str]]:
        """One dequeue call: the (run id, concurrency key) it took, in its order; each taken
        run also held by the queue, marked dequeued and pushed to the worker queue."""
        q, door = self.queue, self.door
        keys = (
            q.ck_index,
            q.env_held,
            q.env_key(":concurrency"),
            q.key(":concurrency"),
            q.env_queue,
            self.master_queue,
            q.env_key(":concurrencyBurstFactor"),
            *self.state_keys,
        )
        argv = (
            q.prefix,
            now,
            max_count,
            DEFAULT_ENV_LIMIT,
            BURST_FACTOR,
            q.master_member,
            q.message_prefix,
            SCAN_FACTOR,
            DEFAULT_QUEUE_LIMIT,
            HELD_SUFFIX,
            self.ttl_queue,
            q.key(":lengthCounter"),
            *door.argv,
        )
        reply = self._call(door.dequeue.sha, keys, argv)
        runs = vtime_dequeue(reply).runs if self.vtime else dequeued_runs(reply)
        taken = [(run.run_id, run.key) for run in runs]
        self._mark_dequeued(taken)
        return taken

    def _mark_dequeued(self, taken: Sequence[tuple[str, str]]) -> None:
        q = self.queue
        pipe = self.client.pipeline(transaction=False)
        for run_id, key in taken:
            pipe.sadd(q.queue_held, run_id)
            pipe.sadd(q.variant(key) + DEQUEUED_SUFFIX, run_id)
            pipe.sadd(q.key(DEQUEUED_SUFFIX), run_id)
            pipe.sadd(q.env_key(DEQUEUED_SUFFIX), run_id)
            pipe.incr(q.key(":runningCounter"))
            pipe.rpush(self.worker_queue, q.message_prefix + run_id)
        pipe.execute()

    def ack(self, run_id: str, key: str) -> None:
        """The run done: its message and slots gone (the queue's own, and the dequeued sets)."""
        q, door = self.queue, self.door
        variant = q.variant(key)
        keys = (*self._run_keys(run_id, key), q.key(":lengthCounter"), *self.state_keys)
        argv = (run_id, q.member(key), q.master_member, q.prefix, COUNTER_TTL_S, *door.argv)
        self._call(door.ack.sha, keys, argv)
        pipe = self.client.pipeline(transaction=False)
        pipe.srem(q.queue_held, run_id)
        pipe.srem(variant + DEQUEUED_SUFFIX, run_id)
        pipe.srem(q.key(DEQUEUED_SUFFIX), run_id)
        pipe.srem(q.env_key(DEQUEUED_SUFFIX), run_id)
        pipe.decr(q.key(":runningCounter"))
        pipe.execute()

    def _run_keys(self, run_id: str, key: str) -> tuple[str, ...]:
        """The KEYS every enqueue and ack script starts with (store/messages.py's order)."""
        q, variant = self.queue, self.queue.variant(key)
        return (
            q.message(run_id),
            variant,
            q.env_queue,
            q.ck_index,
            self.master_queue,
            variant + HELD_SUFFIX,
            q.env_held,
        )

    def _call(self, sha: str, keys: Sequence[str], argv: Sequence[Any]) -> Any:
        return self.client.evalsha(sha, len(keys), *keys, *argv)
