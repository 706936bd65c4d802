-- Shared by every script: loaded in front of each script's own text.

-- Score `member` in `target` by the lowest score in `source`, or drop it when `source` is empty.
local function score_by_lowest(target, source, member)
  local lowest = redis.call('ZRANGE', source, 0, 0, 'WITHSCORES')
  if #lowest == 0 then
    redis.call('ZREM', target, member)
  else
    redis.call('ZADD', target, lowest[2], member)
  end
end

-- Point a CK queue's ckIndex entry at its true head, or drop it when the queue is empty.
local function rescore_to_head(ck_index, ck_queue, member)
  score_by_lowest(ck_index, ck_queue, member)
end

-- The master queue holds the base queue's member, scored by the lowest ckIndex score, exactly
-- while ckIndex is non-empty.
local function fix_master(ck_index, master_queue, master_member)
  score_by_lowest(master_queue, ck_index, master_member)
end


-- DECR a bookkeeping counter only while it is above 0: the counters never go negative.
local function floored_decr(counter)
  if tonumber(redis.call('GET', counter) or '0') > 0 then
    redis.call('DECR', counter)
  end
end

-- A missing lengthCounter starts at the number of runs queued over every ckIndex member (the
-- reference's lazy init; only the init sets the counter's TTL: INCR and DECR keep it).
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

-- Queue a run in its CK queue and the env queue, counted as the reference's tracked enqueue
-- counts it: a missing counter is set up first (before the run's ZADD, so it is counted once),
-- then only a run new to its CK queue counts one more (a queued run is re-scored).
local function queue_counted(run_id, score, ck_queue, env_queue, ck_index, length_counter, prefix,
                             counter_ttl)
  lazy_init_length(length_counter, ck_index, prefix, counter_ttl)
  local added = redis.call('ZADD', ck_queue, score, run_id)
  redis.call('ZADD', env_queue, score, run_id)
  if added == 1 then
    redis.call('INCR', length_counter)
  end
end

-- Take a run out of its CK queue and the env queue; only a run that was queued counts one out.
local function unqueue_counted(run_id, ck_queue, env_queue, length_counter)
  local removed = redis.call('ZREM', ck_queue, run_id)
  redis.call('ZREM', env_queue, run_id)
  if removed == 1 then
    floored_decr(length_counter)
  end
end

-- A run's TTL and org from its payload, or nil when it has no TTL (most payloads: the text
-- is searched before any JSON is decoded).
local function ttl_of(payload)
  if not payload or not string.find(payload, '"ttlExpiresAt"', 1, true) then
    return nil
  end
  local ok, message = pcall(cjson.decode, payload)
  if not ok or type(message) ~= 'table' or not tonumber(message.ttlExpiresAt) then
    return nil
  end
  return tonumber(message.ttlExpiresAt), tostring(message.orgId or '')
end
