-- vtime dequeue(max_count, now): up to `take` runs, at most one per CK queue, lowest virtual
-- time first (SPEC-vtime 5.2). Two versions, chosen by ARGV[13]:
--   'v17' : pass 1 = the `window` lowest tags; pass 2 (ckIndex, age order) only when pass 1
--           under-fills; a drained CK queue loses its tag; the floor is written every call.
--   'head': pass 1 reads 2 x window tags and spends its window budget only on candidates that
--           were ready (a gated or future-headed one costs nothing); pass 2 always runs and
--           registers, when the batch is full, the ckIndex members it found without a tag; a
--           drained CK queue parks its tag in the idle set when above the floor; a serving call
--           raises the floor to the lowest pass-1 served tag and reaps the idle set.
-- KEYS: 1 ckIndex, 2 env concurrency set, 3 env limit, 4 per-queue limit (B:concurrency),
--       5 env queue, 6 master queue, 7 env burst factor, 8 ckVtime, 9 ckVtimeFloor,
--       10 ckVtimeIdle
-- ARGV: 1 key prefix, 2 now, 3 max count, 4 default env limit, 5 default burst factor,
--       6 master member,
--       7 message key prefix (after the key prefix), 8 scan factor, 9 default queue limit,
--       10 held-set suffix (ckviz/model/arithmetic.py), 11 TTL queue ("": no TTL system),
--       12 lengthCounter: dequeue.lua's ARGV; then the vtime tail every vtime script takes
--       (ckviz/disciplines/vtime/door.py): 13 version ('v17' | 'head'), 14 quantum, 15 window
--       multiplier, 16 state ttl (s), 17 idle max entries, 18 arrival cap (unused here),
--       19 trace ('1': return the trace, else an empty one: building it costs the server
--       about a third of a call)
-- Returns {runs, trace, floor}: runs = {run id, score, payload} in serve order; trace = flat
-- {pass, member, fate, drain, tag} per candidate looked at (fate: served, limit, not-ready,
-- empty, expired, orphan, outside-window, batch-full, discovered; drain: parked, removed or '';
-- tag: the served key's new tag, else ''); floor
-- = the floor this call used (after any raise), as text; {} when the env is full.
-- What the server spends around the commands is kept low (docs/performance.md counts it):
-- `call` is a local (one lookup, not two, per command), numbers go to commands as text, the
-- loops keep their own counts, and work whose outcome the call already knows is skipped.
local call = redis.call
local format = string.format
-- Redis 6.2 formats every Lua number argument with %.17g and tostring uses %.14g: for a whole
-- number other than 0 below 1e14 both print what %d prints, which skips the float formatting
-- (about 1,500 instructions less each, 15-20 times a call).
-- a number as tostring writes it (a tag, the floor)
local function text(n)
  if n % 1 == 0 and n ~= 0 and n > -1e14 and n < 1e14 then
    return format('%d', n)
  end
  return tostring(n)
end
-- a number as Redis reads it from a command's argument (else the number: Redis formats it)
local function arg(n)
  if n % 1 == 0 and n ~= 0 and n > -1e14 and n < 1e14 then
    return format('%d', n)
  end
  return n
end
local prefix = ARGV[1]
local now = ARGV[2]
local head = ARGV[13] == 'head'
local quantum = tonumber(ARGV[14])
if not quantum or quantum <= 0 then
  quantum = 1
end
local multiplier = math.max(1, math.floor(tonumber(ARGV[15]) or 3))
local ttl = ARGV[16]
local idle_max = tonumber(ARGV[17])
local ck_index, env_held, env_queue, master = KEYS[1], KEYS[2], KEYS[5], KEYS[6]
local vtime, floor_key, idle = KEYS[8], KEYS[9], KEYS[10]

-- prologue, as dequeue.lua
local env_limit = tonumber(call('GET', KEYS[3]) or ARGV[4])
local capacity = math.floor(env_limit * tonumber(call('GET', KEYS[7]) or ARGV[5]))
local current = call('SCARD', env_held)
if current >= capacity then
  return {}
end
local variant_limit = math.min(tonumber(call('GET', KEYS[4]) or ARGV[9]), env_limit)
local take = math.min(tonumber(ARGV[3]), capacity - current)
local window = take * multiplier

-- The pass-1 scan (2 x window names at HEAD), then the tags of its first `take` members: the
-- keys a call serves unless some are gated or not ready. Redis formats every score it returns
-- (~3,000 instructions each), so the members tied at the lowest tag, usually all of them, take
-- that one's text after a count; only the rest are read with their scores. A key served or
-- drained past the first `take` reads its own tag.
local scan = call('ZRANGE', vtime, '0', arg((head and 2 * window or window) - 1))
local known = {} -- tags read this call, as Redis's text (only a served key's tag changes, and
-- each key is tried once)

-- floor read-repair: fixed for the whole call (HEAD may raise it at the end)
local floor_stored = call('GET', floor_key) -- the floor key's text, as the call leaves it
local floor = tonumber(floor_stored or '0')
if #scan > 0 then
  local lowest = call('ZSCORE', vtime, scan[1])
  known[scan[1]] = lowest
  if take > 1 then -- (a batch of one needs only the lowest)
    local tied = call('ZCOUNT', vtime, '-inf', lowest)
    for i = 2, math.min(tied, take) do
      known[scan[i]] = lowest
    end
    if tied < take then
      local scored = call('ZRANGE', vtime, arg(tied), arg(take - 1), 'WITHSCORES')
      for i = 1, #scored, 2 do
        known[scored[i]] = scored[i + 1]
      end
    end
  end
  if tonumber(lowest) > floor then
    floor = tonumber(lowest)
  end
end

local runs, trace = {}, {}
local served = 0 -- #runs
local attempted = {}
local min_servable = nil
local gated_pending = {}

local tracing = ARGV[19] == '1'
local function note(pass, member, fate, drain, tag)
  if not tracing then
    return
  end
  trace[#trace + 1] = pass
  trace[#trace + 1] = member
  trace[#trace + 1] = fate
  trace[#trace + 1] = drain or ''
  trace[#trace + 1] = tag and tostring(tag) or ''
end

-- A CK queue left empty: V17 forgets its tag; HEAD parks it first when it is above the floor
-- (`served_tag` after a serve, else the stored score: written back with tostring after an
-- expired drop (SPEC-lifecycle 4.2), as Redis's own text after an orphan drop or an empty
-- visit).
local function drained(member, served_tag, fate)
  local drain = 'removed'
  if head then
    local park = served_tag and tostring(served_tag) or known[member]
      or call('ZSCORE', vtime, member)
    if park and fate == 'expired' then
      park = tostring(tonumber(park))
    end
    if park and tonumber(park) > floor then
      call('ZADD', idle, park, member)
      call('EXPIRE', idle, ttl)
      drain = 'parked'
    end
  end
  call('ZREM', vtime, member)
  call('ZREM', ck_index, member)
  return drain
end

-- ARGV 11 and 12 (SPEC-lifecycle 4.1, 4.2): the TTL queue ("" without a TTL system) and the
-- lengthCounter, which every run leaving the queues counts out of (served or expired: the
-- reference's tracked dequeue decrements it on every serve); ttl_of() is the store lib's.
local ttl_queue, length_counter = ARGV[11] or '', ARGV[12]

-- An expired ready head leaves its queues uncounted and unheld; its message stays for the TTL
-- consumer. HEAD puts its TTL entry back (7f01aaf2f0); V17 does not.
local function drop_expired(member, run_id, expires, org_id)
  if head and ttl_queue ~= '' then
    call('ZADD', ttl_queue, expires, member .. '|' .. run_id .. '|' .. org_id)
  end
end

-- Serve one CK queue's ready head, if it may; returns its fate and what happened on drain.
local function try(member, pass, known_registered)
  attempted[member] = true
  local queue = prefix .. member
  local held = queue .. ARGV[10]
  if call('SCARD', held) >= variant_limit then
    if head and not known_registered then
      gated_pending[#gated_pending + 1] = member
    end
    return 'limit', '', nil
  end
  local ready = call('ZRANGEBYSCORE', queue, '-inf', now, 'WITHSCORES', 'LIMIT', '0', '1')
  local fate, served_tag = 'empty', nil
  if #ready > 0 then
    local run_id = ready[1]
    local payload = call('GET', prefix .. ARGV[7] .. run_id)
    local expires, org_id = ttl_of(payload)
    call('ZREM', queue, run_id)
    call('ZREM', env_queue, run_id)
    if length_counter and payload then -- served or expired (an orphan drop is not counted)
      floored_decr(length_counter)
    end
    if expires and expires <= tonumber(now) then
      drop_expired(member, run_id, expires, org_id)
      fate = 'expired'
    elseif payload then
      call('SADD', held, run_id)
      call('SADD', env_held, run_id)
      if expires and ttl_queue ~= '' then
        call('ZREM', ttl_queue, member .. '|' .. run_id .. '|' .. org_id)
      end
      served = served + 1
      runs[served] = {run_id, ready[2], payload}
      local stored = known[member] or call('ZSCORE', vtime, member)
      local tag = tonumber(stored or floor)
      if tag < floor then
        tag = floor
      end
      if pass == 1 and (min_servable == nil or tag < min_servable) then
        min_servable = tag
      end
      served_tag = tag + quantum -- weight 1
      call('ZADD', vtime, text(served_tag), member)
      fate = 'served'
    else
      fate = 'orphan'
    end
  end
  local first = call('ZRANGE', queue, '0', '0', 'WITHSCORES')
  if #first == 0 then
    return fate, drained(member, served_tag, fate), served_tag
  end
  call('ZADD', ck_index, first[2], member)
  if #ready == 0 then
    return 'not-ready', '', nil
  end
  return fate, '', served_tag
end

-- pass 1: virtual-time order, ties by member name, until the batch is full or (HEAD) the
-- window's budget is spent
local budget = window
local reached = #scan -- the scan's members pass 1 tried or passed
for i = 1, #scan do
  if served >= take or (head and budget <= 0) then
    reached = i - 1
    break
  end
  local member = scan[i]
  local fate, drain, tag = try(member, 1, true)
  note(1, member, fate, drain, tag)
  if fate ~= 'limit' and fate ~= 'not-ready' then
    budget = budget - 1
  end
end
if tracing then
  for i = reached + 1, #scan do
    note(1, scan[i], 'outside-window')
  end
end

-- pass 2: age order over ckIndex (V17: only to fill an under-full batch). A key is registered
-- when the scan read it: pass 1 tried it, or it is among the scan's members past where pass 1
-- stopped (marked here for the pass-2 keys not tried yet only, not for all 2 x window).
local discovered = {}
local floor_text = text(floor)
if head or served < take then
  local ready = call('ZRANGEBYSCORE', ck_index, '-inf', now, 'LIMIT', '0',
    arg(math.max(window, take * tonumber(ARGV[8]))))
  local registered = {} -- untried pass-2 key -> whether the scan read it
  local unread = 0 -- untried pass-2 keys not yet found in the scan
  for i = 1, #ready do
    local member = ready[i]
    if not attempted[member] then
      registered[member] = false
      unread = unread + 1
    end
  end
  for i = reached + 1, #scan do
    if unread == 0 then -- the rest of the scan can mark no untried key
      break
    end
    if registered[scan[i]] == false then
      registered[scan[i]] = true
      unread = unread - 1
    end
  end
  -- with the batch full, an untried key the scan read is only traced: nothing to do untraced
  local last = (served >= take and unread == 0 and not tracing) and 0 or #ready
  for i = 1, last do
    local member = ready[i]
    if not attempted[member] then
      if served < take then
        local fate, drain, tag = try(member, 2, registered[member])
        note(2, member, fate, drain, tag)
      elseif head and not registered[member] then
        discovered[#discovered + 1] = floor_text
        discovered[#discovered + 1] = member
        note(2, member, 'discovered')
      elseif tracing then
        note(2, member, 'batch-full')
      end
    end
  end
end

if head then
  if #discovered > 0 then
    call('ZADD', vtime, 'NX', unpack(discovered))
  end
  if #gated_pending > 0 then
    local args = {}
    for _, member in ipairs(gated_pending) do
      args[#args + 1] = floor_text
      args[#args + 1] = member
    end
    if call('ZADD', vtime, 'NX', unpack(args)) > 0 then
      for _, member in ipairs(gated_pending) do
        local parked = call('ZSCORE', idle, member)
        if tonumber(call('ZSCORE', vtime, member)) <= floor and parked
            and tonumber(parked) > floor then
          call('ZADD', vtime, 'XX', parked, member)
        end
      end
      call('EXPIRE', vtime, ttl)
      call('SET', floor_key, floor_text, 'EX', ttl)
      floor_stored = floor_text
    end
  end
  if served > 0 then
    if min_servable ~= nil and min_servable > floor then
      floor = min_servable
      floor_text = text(floor)
    end
    -- on a key already holding that text, EXPIRE does what SET ... EX does, for less (not
    -- with a ttl of 0 or below: EXPIRE would delete the key where SET refuses the ttl)
    if floor_text == floor_stored and ttl ~= '0' and string.byte(ttl) ~= 45 then
      call('EXPIRE', floor_key, ttl)
    else
      call('SET', floor_key, floor_text, 'EX', ttl)
    end
    -- the reaps: at or below the floor, then all but the idle_max highest; an empty idle set
    -- has nothing to reap, nor one of idle_max entries or fewer to trim
    local keep_from = -(idle_max + 1)
    local parked = call('ZCARD', idle)
    if parked > 0 and parked - call('ZREMRANGEBYSCORE', idle, '-inf', floor_text) > idle_max then
      call('ZREMRANGEBYRANK', idle, '0', arg(keep_from))
    end
    call('EXPIRE', vtime, ttl)
  end
else
  call('SET', floor_key, floor_text, 'EX', ttl)
  if call('EXISTS', vtime) == 1 then
    call('EXPIRE', vtime, ttl)
  end
end

fix_master(ck_index, master, ARGV[6])
return {runs, trace, floor_text}
