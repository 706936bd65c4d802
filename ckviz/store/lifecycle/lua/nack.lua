-- nack(run), flag off (nackMessageCkTracked, SPEC-lifecycle 2.3): store the new payload, free
-- the run's slots at once, requeue it at its retry score (a still-queued run is re-scored, not
-- counted twice), point ckIndex at the variant's head (min of the old head and the retry
-- score) and fix the master queue.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck currentConcurrency, 7 env currentConcurrency, 8 ck currentDequeued,
--       9 env currentDequeued, 10 lengthCounter, 11 runningCounter
-- ARGV: 1 run id, 2 ckIndex member, 3 payload, 4 retry score, 5 master member,
--       6 key prefix, 7 counter TTL (s)
local run_id = ARGV[1]
redis.call('SET', KEYS[1], ARGV[3])
release(run_id, KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[11])
lazy_init_length(KEYS[10], KEYS[4], ARGV[6], ARGV[7])
local added = redis.call('ZADD', KEYS[2], ARGV[4], run_id)
redis.call('ZADD', KEYS[3], ARGV[4], run_id)
if added == 1 then
  redis.call('INCR', KEYS[10])
end
rescore_to_head(KEYS[4], KEYS[2], ARGV[2])
fix_master(KEYS[4], KEYS[5], ARGV[5])
drop_legacy_master(KEYS[5], ARGV[2], ARGV[5])
return 1
