-- dead_letter(run), flag off (moveToDeadLetterQueueCkTracked, SPEC-lifecycle 3): take the run
-- out of its queues, fix ckIndex and the master queue, file it under deadLetter at Redis TIME
-- in seconds, then free its slots. The message key is left as it was before the nack.
-- KEYS: 1 message (unused), 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck currentConcurrency, 7 env currentConcurrency, 8 ck currentDequeued,
--       9 env currentDequeued, 10 lengthCounter, 11 runningCounter, 12 deadLetter
-- ARGV: 1 run id, 2 ckIndex member, 3 master member
local run_id = ARGV[1]
local removed = redis.call('ZREM', KEYS[2], run_id)
redis.call('ZREM', KEYS[3], run_id)
if removed == 1 then
  floored_decr(KEYS[10])
end
rescore_to_head(KEYS[4], KEYS[2], ARGV[2])
fix_master(KEYS[4], KEYS[5], ARGV[3])
drop_legacy_master(KEYS[5], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[12], redis.call('TIME')[1], run_id)
release(run_id, KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[11])
return 1
