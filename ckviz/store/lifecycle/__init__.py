"""The run lifecycle's flag-off scripts (SPEC-lifecycle): nack, dead-letter, enqueue with a TTL
and the fast path, and the TTL sweep, with the calls that name their keys.

Not wired into the engine yet: the store's own enqueue, dequeue and ack stay the run queue's
path; these run beside them on the same key layout, plus the keys the lifecycle adds
(currentDequeued sets, length and running counters, TTL shard, dead-letter, worker queue).
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from ckviz.model.arithmetic import BURST_FACTOR, DEFAULT_QUEUE_LIMIT
from ckviz.store.keys import MASTER_MEMBER, ORG, KeyLayout, ck_member
from ckviz.store.scripts import Door, LuaScript, load_scripts

SCRIPTS = load_scripts("ckviz.store.lifecycle")  # dead_letter, enqueue, expire_ttl, nack
DEQUEUED_SUFFIX = ":currentDequeued"
COUNTER_TTL_S = 86_400
TTL_SHARD = "ttl:shard:0"  # one env, so one shard
SWEEP_BATCH = 100
VISIBILITY_TIMEOUT_MS = 30_000


@dataclass(frozen=True, slots=True)
class LifecycleKeys:
    """The keys the lifecycle scripts name, over a run queue's own layout."""

    layout: KeyLayout

    @property
    def length_counter(self) -> str:
        return self.layout.base_key("lengthCounter")

    @property
    def running_counter(self) -> str:
        return self.layout.base_key("runningCounter")

    @property
    def dead_letter(self) -> str:
        return self.layout.env_key("deadLetter")

    @property
    def env_dequeued(self) -> str:
        return self.layout.env_key(DEQUEUED_SUFFIX[1:])

    @property
    def ttl_queue(self) -> str:
        return self.layout.prefix + TTL_SHARD

    @property
    def worker_queue(self) -> str:
        return self.layout.prefix + "workerQueue"

    @property
    def worker_items(self) -> str:
        return self.layout.prefix + "workerQueue:items"

    def ck_dequeued(self, key: str) -> str:
        return self.layout.ck_queue(key) + DEQUEUED_SUFFIX

    def slots(self, key: str) -> list[str]:
        """The four sets a run's slots live in, in the order release() empties them."""
        lay = self.layout
        return [lay.ck_held(key), lay.env_held, self.ck_dequeued(key), self.env_dequeued]


def ttl_member(key: str, run_id: str, org_id: str = ORG) -> str:
    """A TTL queue member: `<variant>|<runId>|<orgId>`."""
    return f"{ck_member(key)}|{run_id}|{org_id}"


def _run(client: redis.Redis, script: LuaScript, keys: list[str], argv: list[str | int]) -> object:
    return client.eval(script.source, len(keys), *keys, *argv)


def nack(
    client: redis.Redis, keys: LifecycleKeys, key: str, run_id: str, payload: str, score: int
) -> object:
    lay = keys.layout
    names = [
        lay.message(run_id),
        lay.ck_queue(key),
        lay.env_queue,
        lay.ck_index,
        lay.master_queue,
        *keys.slots(key),
        keys.length_counter,
        keys.running_counter,
    ]
    argv: list[str | int] = [
        run_id,
        ck_member(key),
        payload,
        score,
        MASTER_MEMBER,
        lay.prefix,
        COUNTER_TTL_S,
    ]
    return _run(client, SCRIPTS["nack"], names, argv)


def dead_letter(client: redis.Redis, keys: LifecycleKeys, key: str, run_id: str) -> object:
    lay = keys.layout
    names = [
        lay.ck_queue(key),
        lay.env_queue,
        lay.ck_index,
        lay.master_queue,
        keys.dead_letter,
        *keys.slots(key),
        keys.length_counter,
        keys.running_counter,
    ]
    return _run(client, SCRIPTS["dead_letter"], names, [run_id, ck_member(key), MASTER_MEMBER])


@dataclass(frozen=True, slots=True)
class Arrival:
    """One enqueue: the run, its score, and what the client decided around it."""

    key: str
    run_id: str
    payload: str
    score: int
    ttl_expires_at: int | None = None
    ttl_system: bool = True  # without one, no TTL entry is written
    fast_path: bool = False  # offered: enableFastPath and timestamp <= now
    now: int = 0


def enqueue(client: redis.Redis, keys: LifecycleKeys, run: Arrival, env_limit: int) -> object:
    """1 when the run took the fast path, 0 when it was queued."""
    lay = keys.layout
    names = [
        lay.message(run.run_id),
        lay.ck_queue(run.key),
        lay.env_queue,
        lay.ck_index,
        lay.master_queue,
        *keys.slots(run.key),
        keys.length_counter,
        keys.ttl_queue,
        lay.env_limit,
        lay.queue_limit,
        keys.worker_queue,
    ]
    expires = "" if run.ttl_expires_at is None else run.ttl_expires_at
    argv: list[str | int] = [
        run.run_id,
        run.score,
        run.payload,
        ck_member(run.key),
        MASTER_MEMBER,
        lay.prefix,
        COUNTER_TTL_S,
        expires,
        ttl_member(run.key, run.run_id) if expires != "" and run.ttl_system else "",
        "1" if run.fast_path else "0",
        run.now,
        env_limit,
        BURST_FACTOR,
        DEFAULT_QUEUE_LIMIT,
        lay.message(run.run_id)[len(lay.prefix) :],
    ]
    return _run(client, SCRIPTS["enqueue"], names, argv)


def expire_ttl(
    client: redis.Redis, keys: LifecycleKeys, now: int, batch: int = SWEEP_BATCH
) -> list[str]:
    """The sweep of the one TTL shard; the run ids it expired, in order."""
    names = [keys.ttl_queue, keys.worker_queue, keys.worker_items]
    argv: list[str | int] = [keys.layout.prefix, now, batch, 1, VISIBILITY_TIMEOUT_MS]
    reply = _run(client, SCRIPTS["expire_ttl"], names, argv)
    assert isinstance(reply, list)
    return [str(r) for r in reply]


def ttl_door(keys: LifecycleKeys, ttl_system: bool = True) -> Door:
    """The store's own scripts, with the dequeue told the TTL queue and the lengthCounter: it
    then drops an expired head instead of serving it (and, with a TTL system, puts it back in
    the TTL queue for the sweep), and a served run's TTL entry goes."""
    return Door(argv=(keys.ttl_queue if ttl_system else "", keys.length_counter))
