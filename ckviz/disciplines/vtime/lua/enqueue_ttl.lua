-- vtime enqueue(run) with a TTL or a fast-path offer (enqueueMessageWithTtlCkVtimeTracked,
-- SPEC-lifecycle 4.1 and 6): the fast path exactly as the flag-off one, which returns before
-- any registration (the run is in no structure the fair pass orders; its key's first slow-path
-- run or nack registers it). Otherwise the flag-off slow path with register(v) between the
-- reindex and the remaster, and the legacy cleanup of the vtime enqueue (V17 unguarded).
-- KEYS: 1-15 as the flag-off enqueue (message, ck queue, env queue, ckIndex, master queue,
--       the four slot sets, lengthCounter, TTL queue, env limit, queue limit, worker queue,
--       env burst factor), 16 ckVtime, 17 ckVtimeFloor, 18 ckVtimeIdle
-- ARGV: 1-15 as the flag-off enqueue, then the vtime tail from 16 (version, quantum, window
--       multiplier, state ttl, idle max entries, arrival cap, trace)
if fast_path_taken() then
  return 1
end
local tail = vtime_tail(16)
enqueue_queue()
register(KEYS[16], KEYS[17], KEYS[18], ARGV[4], tail)
enqueue_finish(tail.head)
return 0
