"""Helpers for the lifecycle scripts' tests: a run queue whose dequeue knows the TTL queue,
payloads like the reference's, and reads of the keys the lifecycle adds."""

from __future__ import annotations

import json

import redis

from ckviz.store import lifecycle
from ckviz.store.keys import MASTER_MEMBER, ORG, KeyLayout, ck_member
from ckviz.store.lifecycle import Arrival, LifecycleKeys
from ckviz.store.runqueue import RunQueue

NOW = 2_000_000_000_000
ORG_ID = ORG  # the TTL member names the same org as the payload


class Lanes:
    """One run queue plus its lifecycle keys, driven the way the reference's client does."""

    def __init__(
        self, client: redis.Redis, prefix: str, env_limit: int = 4, ttl_system: bool = True
    ) -> None:
        self.client = client
        self.keys = LifecycleKeys(KeyLayout(prefix))
        self.q = RunQueue(client, prefix, env_limit, door=lifecycle.ttl_door(self.keys, ttl_system))
        self.q.open()

    def payload(self, key: str, run_id: str, ts: int, **extra: object) -> str:
        message = {"runId": run_id, "concurrencyKey": key, "orgId": ORG_ID, "timestamp": ts}
        return json.dumps({**message, "attempt": 0, **extra}, separators=(",", ":"))

    def enqueue(self, key: str, run_id: str, ts: int, **arrival: object) -> object:
        ttl = arrival.get("ttl_expires_at")
        extra = {} if ttl is None else {"ttlExpiresAt": ttl}
        run = Arrival(key, run_id, self.payload(key, run_id, ts, **extra), ts, **arrival)  # type: ignore[arg-type]
        return lifecycle.enqueue(self.client, self.keys, run, self.q.env_limit)

    def dequeue(self, max_count: int = 1, now: int = NOW) -> list[str]:
        trip = self.q.trip()
        slot = trip.dequeue(max_count, now)
        return [r.run_id for r in trip.send()[slot]]

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
