-- vtime enqueue(run): enqueue.lua, then register the CK queue in ckVtime (SPEC-vtime 5.1).
-- Two versions, chosen by ARGV[6]:
--   'v17'  : ZADD NX at the floor (an existing, possibly advanced, tag is never rewound).
--   'head' : the same NX insert; a variant that was just inserted then takes its parked idle
--            tag if that is above the floor, else (brand new or reaped) stacks one quantum above
--            the highest live (or parked) tag, capped at floor + arrival cap.
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck concurrency set, 7 env concurrency set, 8 ckVtime, 9 ckVtimeFloor, 10 ckVtimeIdle
-- ARGV: 1 run id, 2 timestamp, 3 payload, 4 ckIndex member, 5 master member (enqueue.lua's),
--       then the vtime tail (ckviz/disciplines/vtime/values.py): 6 version ('v17' | 'head'), 7 quantum,
--       8 window multiplier (unused here), 9 state ttl (s), 10 idle max entries (unused),
--       11 arrival cap, 12 trace (unused)
local member = ARGV[4]
local head = ARGV[6] == 'head'
local quantum = tonumber(ARGV[7])
if not quantum or quantum <= 0 then
  quantum = 1
end
local ttl = ARGV[9]

redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
rescore_to_head(KEYS[4], KEYS[2], member)

-- registration, before the master rebalance as in the reference
local floor_text = redis.call('GET', KEYS[9]) or '0'
local floor = tonumber(floor_text)
local inserted = redis.call('ZADD', KEYS[8], 'NX', floor_text, member)
if head and inserted == 1 then
  local parked = redis.call('ZSCORE', KEYS[10], member)
  if parked then
    if tonumber(parked) > floor then
      redis.call('ZADD', KEYS[8], 'XX', parked, member) -- Redis's own score text
    end
  else
    local base = floor
    local top = redis.call('ZRANGE', KEYS[8], -1, -1, 'WITHSCORES')
    if tonumber(top[2]) > floor then
      base = tonumber(top[2])
    else
      local idle_top = redis.call('ZRANGE', KEYS[10], -1, -1, 'WITHSCORES')
      if #idle_top > 0 and tonumber(idle_top[2]) > floor then
        base = tonumber(idle_top[2])
      end
    end
    if base > floor then
      local target = math.min(base + quantum, floor + tonumber(ARGV[11]))
      redis.call('ZADD', KEYS[8], 'XX', tostring(target), member)
    end
  end
end
redis.call('EXPIRE', KEYS[8], ttl)
redis.call('EXPIRE', KEYS[9], ttl)

fix_master(KEYS[4], KEYS[5], ARGV[5])
-- the reference's legacy cleanup; V17 lacks the guard (a key literally '*' loses its entry)
if not head or member ~= ARGV[5] then
  redis.call('ZREM', KEYS[5], member)
end
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
return 1
