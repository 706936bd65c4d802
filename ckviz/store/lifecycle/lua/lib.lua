
-- The lifecycle scripts' own helpers (SPEC-lifecycle section 1), after the store's lib.

-- Free a run's slots: variant then env currentConcurrency, variant then env currentDequeued.
-- Only a run that was in the variant's currentDequeued set was counted as running.
local function release(run_id, ck_held, env_held, ck_dequeued, env_dequeued, running_counter)
  redis.call('SREM', ck_held, run_id)
  redis.call('SREM', env_held, run_id)
  local was_dequeued = redis.call('SREM', ck_dequeued, run_id)
  redis.call('SREM', env_dequeued, run_id)
  if was_dequeued == 1 then
    floored_decr(running_counter)
  end
end

-- The nack and dead-letter scripts also drop a legacy master entry for the variant itself.
local function drop_legacy_master(master_queue, member, master_member)
  if member ~= master_member then
    redis.call('ZREM', master_queue, member)
  end
end

-- The bodies the flag-off scripts share with a discipline's own variants (vtime's). Each reads
-- its script's usual KEYS and ARGV, listed at the top of the flag-off script of the same name;
-- a variant's own keys and ARGV come after those.

-- nack steps 1-5: store the new payload, free the run's slots, requeue it at its retry score
-- (a still-queued run is re-scored, not counted twice) and point ckIndex at the variant's head.
local function nack_requeue()
  local run_id = ARGV[1]
  redis.call('SET', KEYS[1], ARGV[3])
  release(run_id, KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[11])
  queue_counted(run_id, ARGV[4], KEYS[2], KEYS[3], KEYS[4], KEYS[10], ARGV[6], ARGV[7])
  rescore_to_head(KEYS[4], KEYS[2], ARGV[2])
end

-- nack step 6: remaster, and drop a legacy master entry for the variant.
local function nack_remaster()
  fix_master(KEYS[4], KEYS[5], ARGV[5])
  drop_legacy_master(KEYS[5], ARGV[2], ARGV[5])
end

-- dead-letter steps 1-3: out of the variant and env queues (counted down only if it was
-- queued), ckIndex pointed at the variant's head.
local function dead_letter_unqueue()
  unqueue_counted(ARGV[1], KEYS[2], KEYS[3], KEYS[10])
  rescore_to_head(KEYS[4], KEYS[2], ARGV[2])
end

-- dead-letter steps 4-6: remaster (and the legacy entry), file the run under deadLetter at
-- Redis TIME in seconds, free its slots.
local function dead_letter_file()
  fix_master(KEYS[4], KEYS[5], ARGV[3])
  drop_legacy_master(KEYS[5], ARGV[2], ARGV[3])
  redis.call('ZADD', KEYS[12], redis.call('TIME')[1], ARGV[1])
  release(ARGV[1], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[11])
end

-- The enqueue's fast path (SPEC-lifecycle 6), when offered and free: the variant has no ready
-- run, and the env and the variant each have a free slot (the env's limit and burst factor
-- read from their keys, the defaults when absent, as the dequeue reads them). The run is held and its message
-- pushed to the worker queue; no queue, index, counter, TTL or registration. True if taken.
local function fast_path_taken()
  if ARGV[10] ~= '1' then
    return false
  end
  if #redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[11], 'LIMIT', 0, 1) > 0 then
    return false
  end
  local env_limit = tonumber(redis.call('GET', KEYS[12]) or ARGV[12])
  local burst = tonumber(redis.call('GET', KEYS[15]) or ARGV[13])
  if redis.call('SCARD', KEYS[7]) >= math.floor(env_limit * burst) then
    return false
  end
  local queue_limit = math.min(tonumber(redis.call('GET', KEYS[13]) or ARGV[14]), env_limit)
  if redis.call('SCARD', KEYS[6]) >= queue_limit then
    return false
  end
  redis.call('SET', KEYS[1], ARGV[3])
  redis.call('SADD', KEYS[6], ARGV[1])
  redis.call('SADD', KEYS[7], ARGV[1])
  redis.call('RPUSH', KEYS[14], ARGV[15])
  return true
end

-- The slow enqueue up to the registration: store, queue and count the run (queue_counted), its
-- TTL entry, ckIndex at the head.
local function enqueue_queue()
  local run_id = ARGV[1]
  redis.call('SET', KEYS[1], ARGV[3])
  queue_counted(run_id, ARGV[2], KEYS[2], KEYS[3], KEYS[4], KEYS[10], ARGV[6], ARGV[7])
  if ARGV[8] ~= '' and ARGV[9] ~= '' then
    redis.call('ZADD', KEYS[11], ARGV[8], ARGV[9])
  end
  rescore_to_head(KEYS[4], KEYS[2], ARGV[4])
end

-- The slow enqueue after the registration: remaster, the legacy cleanup (`guarded`: only when
-- the variant is not the wildcard), and the run cleared from its four slot sets.
local function enqueue_finish(guarded)
  fix_master(KEYS[4], KEYS[5], ARGV[5])
  if not guarded or ARGV[4] ~= ARGV[5] then
    redis.call('ZREM', KEYS[5], ARGV[4])
  end
  for i = 6, 9 do
    redis.call('SREM', KEYS[i], ARGV[1])
  end
end

-- The TTL sweep (SPEC-lifecycle 4.3) over KEYS 1-3 and ARGV 1-5; `drain(base, raw)`, if
-- given, runs for a CK variant after its reindex (vtime: vdrain). Returns the expired run ids.
local function sweep(drain)
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
        if drain then
          drain(base, raw)
        end
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
end
