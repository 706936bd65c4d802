-- dequeue(max_count, now): take up to max_count ready runs, at most one per CK queue,
-- scanning ckIndex lowest score first. A served CK queue's entry snaps back to its true
-- head inside this call, so a score rewritten before the call steers only the first pick.
-- KEYS: 1 ckIndex, 2 env concurrency set, 3 env limit, 4 per-queue limit (B:concurrency),
--       5 env queue, 6 master queue, 7 env burst factor
-- ARGV: 1 key prefix, 2 now, 3 max count, 4 default env limit, 5 default burst factor,
--       6 master member, 7 message key prefix (after the key prefix), 8 scan factor,
--       9 default queue limit, 10 held-set suffix (all from ckviz/model/arithmetic.py),
--       11 TTL queue ("" or absent: no TTL system), 12 lengthCounter (absent: not kept)
-- A head whose payload has a ttlExpiresAt at or before now is dropped, not served (it is put
-- back in the TTL queue for the sweep), and counts as its queue's one visit of the call; a
-- served run's TTL entry goes (SPEC-lifecycle 4.1, 4.2). Both leave lengthCounter one lower,
-- as the reference's tracked dequeue does (decrLengthCounter on every serve).
local prefix = ARGV[1]
local now = ARGV[2]

local env_limit = tonumber(redis.call('GET', KEYS[3]) or ARGV[4])
local limit = math.floor(env_limit * tonumber(redis.call('GET', KEYS[7]) or ARGV[5]))
local held = redis.call('SCARD', KEYS[2])
if held >= limit then
  return {}
end
local queue_limit = math.min(tonumber(redis.call('GET', KEYS[4]) or ARGV[9]), env_limit)
local budget = math.min(tonumber(ARGV[3]), limit - held)

local candidates = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, budget * tonumber(ARGV[8]))
if #candidates == 0 then
  fix_master(KEYS[1], KEYS[6], ARGV[6])
  return {}
end

local ttl_queue, length_counter = ARGV[11] or '', ARGV[12]

-- An expired run leaves its queues unheld; its message stays for the TTL consumer.
local function drop_expired(member, run_id, expires, org_id)
  if ttl_queue ~= '' then
    redis.call('ZADD', ttl_queue, expires, member .. '|' .. run_id .. '|' .. org_id)
  end
end

local taken = {}
for _, member in ipairs(candidates) do
  if #taken >= budget then
    break
  end
  local ck_queue = prefix .. member
  local ck_held = ck_queue .. ARGV[10]
  if redis.call('SCARD', ck_held) < queue_limit then
    local ready = redis.call('ZRANGEBYSCORE', ck_queue, '-inf', now, 'WITHSCORES', 'LIMIT', 0, 1)
    if #ready > 0 then
      local run_id = ready[1]
      local payload = redis.call('GET', prefix .. ARGV[7] .. run_id)
      local expires, org_id = ttl_of(payload)
      redis.call('ZREM', ck_queue, run_id)
      redis.call('ZREM', KEYS[5], run_id)
      if length_counter then -- served or expired, the run counts out
        floored_decr(length_counter)
      end
      if expires and expires <= tonumber(now) then
        drop_expired(member, run_id, expires, org_id)
      else
        redis.call('SADD', ck_held, run_id)
        redis.call('SADD', KEYS[2], run_id)
        if expires and ttl_queue ~= '' then
          redis.call('ZREM', ttl_queue, member .. '|' .. run_id .. '|' .. org_id)
        end
        taken[#taken + 1] = {run_id, ready[2], payload or false}
      end
    end
    rescore_to_head(KEYS[1], ck_queue, member)
  end
end

fix_master(KEYS[1], KEYS[6], ARGV[6])
return taken
