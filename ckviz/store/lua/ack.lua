-- ack(run): drop the payload and any queued copy of the run (a queued one counted out of
-- lengthCounter), put the CK queue's ckIndex entry back to its true head (or remove it when
-- empty), fix the master queue, and release the run's slot in both concurrency sets.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set, 8 lengthCounter
-- ARGV: 1 run id, 2 ckIndex member, 3 master member, 4 key prefix and 5 counter TTL (the
--       enqueue's, whose packed tail the ack shares; unused here)
redis.call('DEL', KEYS[1])
unqueue_counted(ARGV[1], KEYS[2], KEYS[3], KEYS[8])
rescore_to_head(KEYS[4], KEYS[2], ARGV[2])
fix_master(KEYS[4], KEYS[5], ARGV[3])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
