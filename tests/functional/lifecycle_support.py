"""Helpers for the lifecycle scripts' tests: a run queue driven through its door's lifecycle
calls (`Trip.nack`, `dead_letter`, `enqueue_lifecycle`, `expire_ttl`), payloads like the
reference's, and reads of the keys the lifecycle adds."""

from __future__ import annotations

import json
from typing import Any

import redis

from ckviz.store.keys import MASTER_MEMBER, ORG, ck_member
from ckviz.store.runqueue import RunQueue
from ckviz.store.scripts import LUA_ORDER, Door

NOW = 2_000_000_000_000
ORG_ID = ORG  # the TTL member names the same org as the payload


class Lanes:
    """One run queue plus its lifecycle keys, driven the way the reference's client does."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        env_limit: int = 4,
        ttl_system: bool = True,
        door: Door = LUA_ORDER,
    ) -> None:
        self.client = client
        self.q = RunQueue(client, prefix, env_limit, door=door, ttl_system=ttl_system)
        self.keys = self.q.lifecycle
        self.q.open()

    def one(self, call: str, *args: Any) -> Any:
        """One call of the trip's `call` in a trip of its own; its decoded reply."""
        trip = self.q.trip()
        slot = getattr(trip, call)(*args)
        return trip.send()[slot]

    def payload(self, key: str, run_id: str, ts: int, **extra: object) -> str:
        message = {"runId": run_id, "concurrencyKey": key, "orgId": ORG_ID, "timestamp": ts}
        return json.dumps({**message, "attempt": 0, **extra}, separators=(",", ":"))

    def enqueue(
        self,
        key: str,
        run_id: str,
        ts: int,
        ttl_expires_at: int | None = None,
        fast_path: bool = False,
        now: int = NOW,
    ) -> bool:
        """The lifecycle enqueue (every enqueue of these tests keeps the counters); whether
        the run took the fast path."""
        extra = {} if ttl_expires_at is None else {"ttlExpiresAt": ttl_expires_at}
        payload = self.payload(key, run_id, ts, **extra)
        offer = now if fast_path else None
        return bool(self.one("enqueue_lifecycle", key, run_id, ts, payload, ttl_expires_at, offer))

    def nack(self, key: str, run_id: str, score: int, attempt: int = 1) -> None:
        self.one("nack", key, run_id, self.payload(key, run_id, 1000, attempt=attempt), score)

    def dead_letter(self, key: str, run_id: str) -> None:
        self.one("dead_letter", key, run_id)

    def expire(self, now: int, batch: int = 100) -> list[str]:
        expired: list[str] = self.one("expire_ttl", now, batch)
        return expired

    def dequeue(self, max_count: int = 1, now: int = NOW) -> list[str]:
        reply = self.one("dequeue", max_count, now)
        runs = reply.runs if hasattr(reply, "runs") else reply  # a vtime door's reply
        return [r.run_id for r in runs]

    def pull(self, key: str, run_id: str) -> None:
        """A worker pulled the run: it is in the currentDequeued sets and counted as running."""
        c = self.client
        c.sadd(self.keys.ck_dequeued(key), run_id)
        c.sadd(self.keys.env_dequeued, run_id)
        c.incr(self.keys.running_counter)

    # reads
    def queued(self, key: str) -> list[tuple[str, float]]:
        return self.client.zrange(self.q.keys.ck_queue(key), 0, -1, withscores=True)

    def env_queued(self) -> list[tuple[str, float]]:
        return self.client.zrange(self.q.keys.env_queue, 0, -1, withscores=True)

    def index_score(self, key: str) -> float | None:
        return self.client.zscore(self.q.keys.ck_index, ck_member(key))

    def master_score(self) -> float | None:
        return self.client.zscore(self.q.keys.master_queue, MASTER_MEMBER)

    def counter(self, name: str) -> int | None:
        value = self.client.get(self.q.keys.base_key(name))
        return None if value is None else int(value)

    def slots(self, key: str) -> list[set[str]]:
        return [self.client.smembers(s) for s in self.keys.slots(key)]

    def message(self, run_id: str) -> dict | None:
        raw = self.client.get(self.q.keys.message(run_id))
        return None if raw is None else json.loads(raw)

    def ttl_entries(self) -> list[tuple[str, float]]:
        return self.client.zrange(self.keys.ttl_queue, 0, -1, withscores=True)
