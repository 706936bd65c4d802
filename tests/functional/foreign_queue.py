"""A run queue written by a producer ckviz did not write: the key layout of SPEC-live 1 and the
dequeue of SPEC 3 (the baseline: env room by limit and burst factor, a scan window of 3x the
budget over ckIndex's due members, one run per variant under the queue's limit), spelled here
from the specs' text alone with plain commands and small scripts of its own. It imports
nothing of ckviz's producer, Lua or key names, so a test that holds ckviz's watch, capture and
whatif against it does not share ckviz's assumptions.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any

import redis

# KEYS: message, variant, env zset, ckIndex (or ""), master shard, lengthCounter,
#       variant held, env held, ttl shard (or "")
# ARGV: run id, score, payload, ckIndex member (or ""), master member, ttlExpiresAt (or "")
_ENQUEUE = """
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
redis.call('SREM', KEYS[8], ARGV[1])
local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if KEYS[4] ~= '' then
  redis.call('ZADD', KEYS[4], head[2], ARGV[4])
  local oldest = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
  redis.call('ZADD', KEYS[5], oldest[2], ARGV[5])
else
  redis.call('ZADD', KEYS[5], head[2], ARGV[5])
end
redis.call('INCR', KEYS[6])
redis.call('EXPIRE', KEYS[6], 86400)
if KEYS[9] ~= '' and ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[9], ARGV[6], ARGV[4] .. '|' .. ARGV[1])
end
return 1
"""

# SPEC 3's dequeue, step by step (with SPEC-lifecycle 4.2's drop of an expired head).
# KEYS: ckIndex, env held, env limit, env burst, queue limit, env zset, master shard,
#       queue held, env dequeued, queue dequeued, runningCounter, lengthCounter, worker queue
# ARGV: prefix, now, max count, default env limit, master member, message prefix
_DEQUEUE = """
local envLimit = tonumber(redis.call('GET', KEYS[3]) or ARGV[4])
local burst = tonumber(redis.call('GET', KEYS[4]) or '1')
local capacity = math.floor(envLimit * burst)
local held = redis.call('SCARD', KEYS[2])
if held >= capacity then return {} end
local queueLimit = math.min(tonumber(redis.call('GET', KEYS[5]) or '1000000'), envLimit)
local budget = math.min(tonumber(ARGV[3]), capacity - held)
local candidates = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, budget * 3)
local taken = {}
for _, member in ipairs(candidates) do
  if #taken >= budget then break end
  local variant = ARGV[1] .. member
  if redis.call('SCARD', variant .. ':currentConcurrency') < queueLimit then
    local head = redis.call('ZRANGEBYSCORE', variant, '-inf', ARGV[2], 'LIMIT', 0, 1)
    local expired = false
    if #head > 0 then  -- SPEC-lifecycle 4.2: a ready head past its TTL is dropped, not served
      local text = redis.call('GET', ARGV[6] .. head[1])
      local ok, body = pcall(cjson.decode, text or '')
      local at = ok and type(body) == 'table' and tonumber(body['ttlExpiresAt'])
      expired = at and at <= tonumber(ARGV[2])
    end
    if expired then
      redis.call('ZREM', variant, head[1])
      redis.call('ZREM', KEYS[6], head[1])
      if tonumber(redis.call('GET', KEYS[12]) or '0') > 0 then redis.call('DECR', KEYS[12]) end
    elseif #head > 0 then
      local run = head[1]
      redis.call('ZREM', variant, run)
      redis.call('ZREM', KEYS[6], run)
      redis.call('SADD', variant .. ':currentConcurrency', run)
      redis.call('SADD', KEYS[8], run)
      redis.call('SADD', KEYS[2], run)
      redis.call('SADD', variant .. ':currentDequeued', run)
      redis.call('SADD', KEYS[10], run)
      redis.call('SADD', KEYS[9], run)
      redis.call('INCR', KEYS[11])
      if tonumber(redis.call('GET', KEYS[12]) or '0') > 0 then redis.call('DECR', KEYS[12]) end
      redis.call('RPUSH', KEYS[13], ARGV[6] .. run)
      table.insert(taken, {member, run})
    end
    local rest = redis.call('ZRANGE', variant, 0, 0, 'WITHSCORES')
    if #rest == 0 then redis.call('ZREM', KEYS[1], member)
    else redis.call('ZADD', KEYS[1], rest[2], member) end
  end
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #oldest == 0 then redis.call('ZREM', KEYS[7], ARGV[5])
else redis.call('ZADD', KEYS[7], oldest[2], ARGV[5]) end
return taken
"""

# release a run's slots, and requeue it (nack: a score) or not (ack, dead letter)
# KEYS: message, variant, env zset, ckIndex, master, variant held, env held, variant dequeued,
#       env dequeued, queue held, queue dequeued, runningCounter, dead letter
# ARGV: run id, member, master member, mode (ack | nack | dead), score, payload, seconds
_SETTLE = """
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
redis.call('SREM', KEYS[10], ARGV[1])
redis.call('SREM', KEYS[11], ARGV[1])
redis.call('SREM', KEYS[9], ARGV[1])
if redis.call('SREM', KEYS[8], ARGV[1]) == 1 then
  if tonumber(redis.call('GET', KEYS[12]) or '0') > 0 then redis.call('DECR', KEYS[12]) end
end
if ARGV[4] == 'nack' then
  redis.call('SET', KEYS[1], ARGV[6])
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
else
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  if ARGV[4] == 'ack' then redis.call('DEL', KEYS[1])
  else redis.call('ZADD', KEYS[13], ARGV[7], ARGV[1]) end
end
local rest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #rest == 0 then redis.call('ZREM', KEYS[4], ARGV[2])
else redis.call('ZADD', KEYS[4], rest[2], ARGV[2]) end
local oldest = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
if #oldest == 0 then redis.call('ZREM', KEYS[5], ARGV[3])
else redis.call('ZADD', KEYS[5], oldest[2], ARGV[3]) end
return 1
"""

SHARDS = 2
WORKER = "worker-main"


@dataclass(frozen=True)
class Taken:
    """One run a dequeue took: its variant's member (no prefix), its id."""

    member: str
    run_id: str

    def key(self, base: str) -> str:
        return self.member[len(base) + len(":ck:") :]


class ForeignQueue:
    """One base queue `P{org:O}:proj:J:env:E:queue:T`, CK'd (a variant per concurrency key) or
    plain (`ck=False`: its runs in `Q` itself, no ckIndex)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        org: str,
        project: str,
        env: str,
        name: str,
        ck: bool = True,
    ) -> None:
        self.client, self.prefix = client, prefix
        self.org, self.project, self.env, self.name, self.ck = org, project, env, name, ck
        self.env_path = f"{{org:{org}}}:proj:{project}:env:{env}"
        self.base = f"{self.env_path}:queue:{name}"
        shard = zlib.crc32(env.encode()) % SHARDS
        self.master = f"{prefix}masterQueue:shard:{shard}"
        self.ttl = f"{prefix}ttl:shard:{shard}"
        self.env_zset = f"{prefix}{{org:{org}}}:env:{env}"
        self.worker = f"{prefix}workerQueue:{WORKER}"
        self.arrivals: dict[str, tuple[str, int]] = {}  # run id -> (key, its first score)
        self._enqueue = client.register_script(_ENQUEUE)
        self._dequeue = client.register_script(_DEQUEUE)
        self._settle = client.register_script(_SETTLE)

    # names (with the prefix)
    def q(self, suffix: str = "") -> str:
        return f"{self.prefix}{self.base}{suffix}"

    def e(self, suffix: str) -> str:
        return f"{self.prefix}{self.env_path}{suffix}"

    def member(self, key: str | None) -> str:
        return self.base if key is None else f"{self.base}:ck:{key}"

    def variant(self, key: str | None) -> str:
        return self.prefix + self.member(key)

    def message_key(self, run_id: str) -> str:
        return f"{self.prefix}{{org:{self.org}}}:message:{run_id}"

    @property
    def master_member(self) -> str:
        return f"{self.base}:ck:*" if self.ck else self.base

    def limits(
        self, env: int | None = None, burst: float | None = None, queue: int | None = None
    ) -> None:
        for name, value in (
            (self.e(":concurrency"), env),
            (self.e(":concurrencyBurstFactor"), burst),
            (self.q(":concurrency"), queue),
        ):
            if value is not None:
                self.client.set(name, value)

    def message(self, run_id: str, key: str | None, ts: int, attempt: int, ttl: int | None) -> str:
        body: dict[str, Any] = {
            "version": "2",
            "runId": run_id,
            "taskIdentifier": self.name.rsplit("/", 1)[-1],
            "orgId": self.org,
            "projectId": self.project,
            "environmentId": self.env,
            "environmentType": "PRODUCTION",
            "queue": self.member(key),
            "concurrencyKey": key,
            "timestamp": ts,
            "attempt": attempt,
            "workerQueue": WORKER,
        }
        if ttl is not None:
            body["ttlExpiresAt"] = ttl
        return json.dumps(body, ensure_ascii=False)

    def enqueue(self, run_id: str, key: str | None, ts: int, ttl: int | None = None) -> None:
        self.arrivals.setdefault(run_id, (key or "", ts))
        variant = self.variant(key)
        self._enqueue(
            keys=[
                self.message_key(run_id),
                variant,
                self.env_zset,
                self.q(":ckIndex") if self.ck else "",
                self.master,
                self.q(":lengthCounter"),
                variant + ":currentConcurrency",
                self.e(":currentConcurrency"),
                self.ttl if ttl is not None else "",
            ],
            args=[
                run_id,
                ts,
                self.message(run_id, key, ts, 0, ttl),
                self.member(key) if self.ck else "",
                self.master_member,
                "" if ttl is None else ttl,
            ],
        )

    def dequeue(self, max_count: int, now: int, default_env_limit: int = 10) -> list[Taken]:
        reply = self._dequeue(
            keys=[
                self.q(":ckIndex"),
                self.e(":currentConcurrency"),
                self.e(":concurrency"),
                self.e(":concurrencyBurstFactor"),
                self.q(":concurrency"),
                self.env_zset,
                self.master,
                self.q(":currentConcurrency"),
                self.e(":currentDequeued"),
                self.q(":currentDequeued"),
                self.q(":runningCounter"),
                self.q(":lengthCounter"),
                self.worker,
            ],
            args=[
                self.prefix,
                now,
                max_count,
                default_env_limit,
                self.master_member,
                f"{self.prefix}{{org:{self.org}}}:message:",
            ],
        )
        return [Taken(_s(m), _s(r)) for m, r in reply]

    def _settle_run(self, run_id: str, key: str, mode: str, score: int = 0, body: str = "") -> None:
        variant = self.variant(key)
        self._settle(
            keys=[
                self.message_key(run_id),
                variant,
                self.env_zset,
                self.q(":ckIndex"),
                self.master,
                variant + ":currentConcurrency",
                self.e(":currentConcurrency"),
                variant + ":currentDequeued",
                self.e(":currentDequeued"),
                self.q(":currentConcurrency"),
                self.q(":currentDequeued"),
                self.q(":runningCounter"),
                self.e(":deadLetter"),
            ],
            args=[run_id, self.member(key), self.master_member, mode, score, body, score // 1000],
        )

    def ack(self, run_id: str, key: str) -> None:
        self._settle_run(run_id, key, "ack")

    def nack(self, run_id: str, key: str, retry_at: int) -> None:
        """Retried: attempt + 1, queued again at `retry_at` (a future score)."""
        raw = self.client.get(self.message_key(run_id))
        body = json.loads(raw) if raw else {}
        body["attempt"] = int(body.get("attempt", 0)) + 1
        body.pop("ttlExpiresAt", None)
        self._settle_run(run_id, key, "nack", retry_at, json.dumps(body, ensure_ascii=False))

    def dead_letter(self, run_id: str, key: str, now_ms: int) -> None:
        self._settle_run(run_id, key, "dead", now_ms)

    # what the queue holds, read back plainly (for the tests' expectations)
    def queued(self, key: str) -> list[tuple[str, int]]:
        return [
            (_s(m), int(s))
            for m, s in self.client.zrange(self.variant(key), 0, -1, withscores=True)
        ]

    def held(self, key: str) -> set[str]:
        return {_s(m) for m in self.client.smembers(self.variant(key) + ":currentConcurrency")}


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
