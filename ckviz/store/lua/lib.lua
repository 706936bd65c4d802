-- Shared by enqueue, dequeue and ack: loaded in front of each script's own text.

-- Point a CK queue's ckIndex entry at its true head (lowest score), or drop it when empty.
local function rescore_to_head(ck_index, ck_queue, member)
  local head = redis.call('ZRANGE', ck_queue, 0, 0, 'WITHSCORES')
  if #head == 0 then
    redis.call('ZREM', ck_index, member)
  else
    redis.call('ZADD', ck_index, head[2], member)
  end
end

-- The master queue holds the base queue's member, scored by the lowest ckIndex score, exactly
-- while ckIndex is non-empty.
local function fix_master(ck_index, master_queue, master_member)
  local lowest = redis.call('ZRANGE', ck_index, 0, 0, 'WITHSCORES')
  if #lowest == 0 then
    redis.call('ZREM', master_queue, master_member)
  else
    redis.call('ZADD', master_queue, lowest[2], master_member)
  end
end

