-- nack(run), flag off (nackMessageCkTracked, SPEC-lifecycle 2.3): store the new payload, free
-- the run's slots at once, requeue it at its retry score (a still-queued run is re-scored, not
-- counted twice), point ckIndex at the variant's head (min of the old head and the retry
-- score) and fix the master queue.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck currentConcurrency, 7 env currentConcurrency, 8 ck currentDequeued,
--       9 env currentDequeued, 10 lengthCounter, 11 runningCounter
-- ARGV: 1 run id, 2 ckIndex member, 3 payload, 4 retry score, 5 master member,
--       6 key prefix, 7 counter TTL (s)
nack_requeue()
nack_remaster()
return 1
