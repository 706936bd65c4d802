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
