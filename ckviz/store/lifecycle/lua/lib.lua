
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

-- A missing lengthCounter starts at the number of runs queued over every ckIndex member.
local function lazy_init_length(length_counter, ck_index, prefix, counter_ttl)
  if redis.call('EXISTS', length_counter) == 1 then
    return
  end
  local total = 0
  for _, member in ipairs(redis.call('ZRANGE', ck_index, 0, -1)) do
    total = total + redis.call('ZCARD', prefix .. member)
  end
  redis.call('SET', length_counter, total, 'EX', counter_ttl)
end

-- The nack and dead-letter scripts also drop a legacy master entry for the variant itself.
local function drop_legacy_master(master_queue, member, master_member)
  if member ~= master_member then
    redis.call('ZREM', master_queue, member)
  end
end
