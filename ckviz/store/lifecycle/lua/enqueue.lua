-- enqueue(run), flag off (enqueueMessage[WithTtl]CkTracked, SPEC-vtime 2, SPEC-lifecycle 4.1
-- and 6). Fast path first, when the client offers it: if the variant has no ready run and both
-- the env and the variant have a free slot, hold the run and push its message straight to the
-- worker queue, touching no queue, index, counter or TTL entry (returns 1). Otherwise the slow
-- path: queue the run, add its TTL entry (only with a TTL and a TTL system), count it, point
-- ckIndex at the variant's head, fix the master queue and clear the run's slots (returns 0).
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck currentConcurrency, 7 env currentConcurrency, 8 ck currentDequeued,
--       9 env currentDequeued, 10 lengthCounter, 11 TTL queue, 12 env limit, 13 queue limit,
--       14 worker queue, 15 env burst factor
-- ARGV: 1 run id, 2 score (timestamp), 3 payload, 4 ckIndex member, 5 master member,
--       6 key prefix, 7 counter TTL (s), 8 ttlExpiresAt ("" for none), 9 TTL member
--       <v>|<runId>|<orgId> ("" without a TTL system), 10 fast path offered ("1" or "0"),
--       11 now, 12 default env limit, 13 default burst factor, 14 default queue limit,
--       15 message name pushed on the fast path
if fast_path_taken() then
  return 1
end
enqueue_queue()
enqueue_finish(true)
return 0
