-- enqueue(run): store the payload, queue the run in its CK queue and the env queue,
-- point ckIndex at the CK queue's true head (plain ZADD: it overwrites a rescore),
-- fix the master queue, and clear the run from both concurrency sets.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set
-- ARGV: 1 run id, 2 timestamp, 3 payload, 4 ckIndex member, 5 master member
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
rescore_to_head(KEYS[4], KEYS[2], ARGV[4])
fix_master(KEYS[4], KEYS[5], ARGV[5])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
