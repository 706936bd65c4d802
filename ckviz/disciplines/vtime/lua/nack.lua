-- vtime nack(run) (nackMessageCkVtimeTracked, SPEC-lifecycle 2.3): the flag-off nack with
-- register(v) between the reindex and the remaster. HEAD: a variant still registered keeps its
-- tag; one drained since the run's serve takes its parked tag (the floor if that is at or
-- below it); one whose idle entry was reaped stacks behind the highest tag. V17 (SPEC-vtime
-- 5.5): NX at the floor. A nack never lowers a live tag.
-- KEYS: 1-11 as the flag-off nack (message, ck queue, env queue, ckIndex, master queue, the
--       four slot sets, lengthCounter, runningCounter), 12 ckVtime, 13 ckVtimeFloor,
--       14 ckVtimeIdle
-- ARGV: 1-7 as the flag-off nack (run id, ckIndex member, payload, retry score, master
--       member, key prefix, counter TTL), then the vtime tail from 8 (version, quantum, window
--       multiplier, state ttl, idle max entries, arrival cap, trace)
nack_requeue()
register(KEYS[12], KEYS[13], KEYS[14], ARGV[2], vtime_tail(8))
nack_remaster()
return 1
