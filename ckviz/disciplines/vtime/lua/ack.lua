-- vtime ack(run), HEAD only (V17 acks with ack.lua and never touches a vtime key): ack.lua,
-- then vdrain: if the CK queue is now empty, park its ckVtime tag in the idle set
-- (unconditionally, even at or below the floor: the next serving dequeue reaps it) and drop it
-- from ckVtime.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set, 8 lengthCounter, 9 ckVtime,
--       10 ckVtimeFloor (unused), 11 ckVtimeIdle
-- ARGV: 1 run id, 2 ckIndex member, 3 master member, 4 key prefix, 5 counter TTL (ack.lua's),
--       then the vtime tail (ckviz/disciplines/vtime/door.py): 6 version, 7 quantum, 8 window
--       multiplier, 9 state ttl (s), 10 idle max entries, 11 arrival cap, 12 trace (only the
--       ttl is used here)
redis.call('DEL', KEYS[1])
unqueue_counted(ARGV[1], KEYS[2], KEYS[3], KEYS[8])
rescore_to_head(KEYS[4], KEYS[2], ARGV[2])
fix_master(KEYS[4], KEYS[5], ARGV[3])
vdrain(KEYS[2], KEYS[9], KEYS[11], ARGV[2], ARGV[9])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
