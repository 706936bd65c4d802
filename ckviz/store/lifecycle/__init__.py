"""The run lifecycle's flag-off scripts (SPEC-lifecycle): nack, dead-letter, enqueue with a TTL
and the fast path, and the TTL sweep (their Lua is in `lua/`, loaded as `scripts.LIFECYCLE`),
and the names of the keys the lifecycle adds to a run queue's layout.

Every discipline's `Door` names a script for each path (these, unless it has its own); the
engine reaches them through `Trip.nack`, `dead_letter`, `enqueue` (with `ttl_expires_at` or
`fast_path_at`) and `expire_ttl`, and decides a nack with `lifecycle.client.nack_step`.
This module imports no script: `ckviz.store.scripts` loads the `lua/` folder of this package.
"""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.store.keys import ORG, KeyLayout, ck_member

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
        """The list the fast path pushes a run's message name onto (RPUSH)."""
        return self.layout.prefix + "workerQueue"

    @property
    def ttl_jobs(self) -> str:
        """The TTL consumer's job queue (a zset: `expireTtlRun` jobs by Redis TIME). Not the
        fast path's list: a sweep after a fast-path serve would ZADD to a list (WRONGTYPE)."""
        return self.layout.prefix + "ttlWorker:queue"

    @property
    def ttl_job_items(self) -> str:
        return self.layout.prefix + "ttlWorker:items"

    def ck_dequeued(self, key: str) -> str:
        return self.layout.ck_queue(key) + DEQUEUED_SUFFIX

    def slots(self, key: str) -> list[str]:
        """The four sets a run's slots live in, in the order release() empties them."""
        lay = self.layout
        return [lay.ck_held(key), lay.env_held, self.ck_dequeued(key), self.env_dequeued]


def ttl_member(key: str, run_id: str, org_id: str = ORG) -> str:
    """A TTL queue member: `<variant>|<runId>|<orgId>`."""
    return f"{ck_member(key)}|{run_id}|{org_id}"
