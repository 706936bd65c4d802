-- enqueue(run): store the payload, queue the run in its CK queue and the env queue (counted in
-- lengthCounter as the reference's tracked enqueue counts it, SPEC-vtime 2), point ckIndex at
-- the CK queue's true head (plain ZADD: it overwrites a rescore), fix the master queue, and
-- clear the run from both concurrency sets.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set, 8 lengthCounter
-- ARGV: 1 run id, 2 timestamp, 3 payload, 4 ckIndex member, 5 master member, 6 key prefix,
--       7 counter TTL (s)
redis.call('SET', KEYS[1], ARGV[3])
queue_counted(ARGV[1], ARGV[2], KEYS[2], KEYS[3], KEYS[4], KEYS[8], ARGV[6], ARGV[7])
rescore_to_head(KEYS[4], KEYS[2], ARGV[4])
fix_master(KEYS[4], KEYS[5], ARGV[5])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
