-- expire_ttl(shard), flag off (expireTtlRunsCkTracked, SPEC-lifecycle 4.3): for each TTL entry
-- due by `now` (lowest first, ties by member bytes, at most batch size), drop the run from
-- everywhere, fix its CK variant's counters and ckIndex entry, and hand the worker an
-- expireTtlRun job scored by Redis TIME. A member without two `|` is skipped and kept. The
-- master queue is not touched: a CK wildcard's score stays stale until the next CK write.
-- KEYS: 1 TTL queue, 2 worker queue, 3 worker items
-- ARGV: 1 key prefix, 2 now, 3 batch size, 4 shard count (unused), 5 visibility timeout (ms)
local prefix = ARGV[1]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local time = redis.call('TIME')
local now_ms = time[1] * 1000 + math.floor(time[2] / 1000)
local expired = {}

for _, member in ipairs(due) do
  local first = string.find(member, '|', 1, true)
  local second = first and string.find(member, '|', first + 1, true)
  if second then
    local raw = string.sub(member, 1, first - 1)
    local run_id = string.sub(member, first + 1, second - 1)
    local org_id = string.sub(member, second + 1)
    local org = string.match(raw, '^{org:([^}]*)}') or ''
    local env_path = string.match(raw, '^(.-:env:[^:]+)') or ''
    local env_id = string.match(raw, ':env:([^:]+)') or ''
    redis.call('ZREM', KEYS[1], member)
    redis.call('DEL', prefix .. '{org:' .. org .. '}:message:' .. run_id)
    local left_queue = redis.call('ZREM', prefix .. raw, run_id)
    redis.call('ZREM', prefix .. '{org:' .. org .. '}:env:' .. env_id, run_id)
    redis.call('SREM', prefix .. raw .. ':currentConcurrency', run_id)
    local left_dequeued = redis.call('SREM', prefix .. raw .. ':currentDequeued', run_id)
    redis.call('SREM', prefix .. env_path .. ':currentConcurrency', run_id)
    redis.call('SREM', prefix .. env_path .. ':currentDequeued', run_id)
    local ck_at = string.find(raw, ':ck:', 1, true)
    if ck_at then
      local base = prefix .. string.sub(raw, 1, ck_at - 1)
      if left_queue == 1 then
        floored_decr(base .. ':lengthCounter')
      end
      if left_dequeued == 1 then
        floored_decr(base .. ':runningCounter')
      end
      rescore_to_head(base .. ':ckIndex', prefix .. raw, raw)
    end
    redis.call('ZADD', KEYS[2], now_ms, run_id)
    local job = {
      job = 'expireTtlRun',
      item = {runId = run_id, orgId = org_id, queueKey = raw},
      visibilityTimeoutMs = tonumber(ARGV[5]),
      attempt = 0,
    }
    redis.call('HSET', KEYS[3], run_id, cjson.encode(job))
    expired[#expired + 1] = run_id
  end
end
return expired
