
-- vtime's helpers (SPEC-lifecycle 1, SPEC-vtime 5.1), after the store's lib and the
-- lifecycle's.

-- The vtime tail every vtime script takes after its usual ARGV, from ARGV[at] on
-- (ckviz/disciplines/vtime/door.py: version, quantum, window multiplier, state ttl (s), idle
-- max entries, arrival cap, trace).
local function vtime_tail(at)
  local quantum = tonumber(ARGV[at + 1])
  if not quantum or quantum <= 0 then
    quantum = 1
  end
  return {
    head = ARGV[at] == 'head',
    quantum = quantum,
    ttl = ARGV[at + 3],
    arrival_cap = tonumber(ARGV[at + 5]),
  }
end

-- register(v): V17 inserts an absent variant at the floor (NX: an existing tag is never
-- rewound). HEAD does the same insert; a variant it just inserted then takes its parked idle
-- tag if that is above the floor (at or below it: the floor, no stacking), else (brand new or
-- reaped) stacks one quantum above the highest live tag, or the highest parked one, when that
-- is above the floor, capped at floor + arrival cap. The idle entry is never deleted here.
-- Then both refresh the TTLs of ckVtime and the floor.
-- (Constant ranks go to ZRANGE as text: Redis 6.2 formats each Lua number argument with
-- %.17g, on every registration.)
local function register(vtime, floor_key, idle, member, tail)
  local floor_text = redis.call('GET', floor_key) or '0'
  local floor = tonumber(floor_text)
  local inserted = redis.call('ZADD', vtime, 'NX', floor_text, member)
  if tail.head and inserted == 1 then
    local parked = redis.call('ZSCORE', idle, member)
    if parked then
      if tonumber(parked) > floor then
        redis.call('ZADD', vtime, 'XX', parked, member) -- Redis's own score text
      end
    else
      local base = floor
      local top = redis.call('ZRANGE', vtime, '-1', '-1', 'WITHSCORES')
      if tonumber(top[2]) > floor then
        base = tonumber(top[2])
      else
        local idle_top = redis.call('ZRANGE', idle, '-1', '-1', 'WITHSCORES')
        if #idle_top > 0 and tonumber(idle_top[2]) > floor then
          base = tonumber(idle_top[2])
        end
      end
      if base > floor then
        local target = math.min(base + tail.quantum, floor + tail.arrival_cap)
        redis.call('ZADD', vtime, 'XX', tostring(target), member)
      end
    end
  end
  redis.call('EXPIRE', vtime, tail.ttl)
  redis.call('EXPIRE', floor_key, tail.ttl)
end

-- vdrain(v) (HEAD's ack, dead-letter and TTL sweep): once the variant's queue is empty, park
-- its tag as Redis's own text, with no floor test (the next serving dequeue reaps what is at
-- or below the floor), and drop it from ckVtime.
local function vdrain(queue, vtime, idle, member, ttl)
  if redis.call('EXISTS', queue) == 1 then
    return
  end
  local tag = redis.call('ZSCORE', vtime, member)
  if tag then
    redis.call('ZADD', idle, tag, member)
    redis.call('EXPIRE', idle, ttl)
  end
  redis.call('ZREM', vtime, member)
end
