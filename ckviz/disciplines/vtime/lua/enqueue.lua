-- vtime enqueue(run): enqueue.lua, then register the CK queue in ckVtime (SPEC-vtime 5.1;
-- register() in this folder's lib.lua: V17 at the floor, HEAD with the parked tag or stacked).
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set, 8 lengthCounter, 9 ckVtime,
--       10 ckVtimeFloor, 11 ckVtimeIdle
-- ARGV: 1 run id, 2 timestamp, 3 payload, 4 ckIndex member, 5 master member, 6 key prefix,
--       7 counter TTL (s) (enqueue.lua's), then the vtime tail (ckviz/disciplines/vtime/door.py):
--       8 version ('v17' | 'head'), 9 quantum, 10 window multiplier (unused here), 11 state ttl
--       (s), 12 idle max entries (unused), 13 arrival cap, 14 trace (unused)
local member = ARGV[4]
local tail = vtime_tail(8)

redis.call('SET', KEYS[1], ARGV[3])
queue_counted(ARGV[1], ARGV[2], KEYS[2], KEYS[3], KEYS[4], KEYS[8], ARGV[6], ARGV[7])
rescore_to_head(KEYS[4], KEYS[2], member)

-- registration, before the master rebalance as in the reference
register(KEYS[9], KEYS[10], KEYS[11], member, tail)

fix_master(KEYS[4], KEYS[5], ARGV[5])
-- the reference's legacy cleanup; V17 lacks the guard (a key literally '*' loses its entry)
if not tail.head or member ~= ARGV[5] then
  redis.call('ZREM', KEYS[5], member)
end
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
