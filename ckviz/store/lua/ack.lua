-- ack(run): drop the payload and any queued copy of the run, put the CK queue's ckIndex
-- entry back to its true head (or remove it when empty), fix the master queue, and
-- release the run's slot in both concurrency sets.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set
-- ARGV: 1 run id, 2 ckIndex member, 3 master member
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #head == 0 then
  redis.call('ZREM', KEYS[4], ARGV[2])
else
  redis.call('ZADD', KEYS[4], head[2], ARGV[2])
end
local lowest = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
if #lowest == 0 then
  redis.call('ZREM', KEYS[5], ARGV[3])
else
  redis.call('ZADD', KEYS[5], lowest[2], ARGV[3])
end
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
