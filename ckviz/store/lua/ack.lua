-- ack(run): drop the payload and any queued copy of the run, put the CK queue's ckIndex
-- entry back to its true head (or remove it when empty), fix the master queue, and
-- release the run's slot in both concurrency sets.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set
-- ARGV: 1 run id, 2 ckIndex member, 3 master member
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
rescore_to_head(KEYS[4], KEYS[2], ARGV[2])
fix_master(KEYS[4], KEYS[5], ARGV[3])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
