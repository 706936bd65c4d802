-- enqueue(run), flag off (enqueueMessage[WithTtl]CkTracked, SPEC-vtime 2, SPEC-lifecycle 4.1
-- and 6). Fast path first, when the client offers it: if the variant has no ready run and both
-- the env and the variant have a free slot, hold the run and push its message straight to the
-- worker queue, touching no queue, index, counter or TTL entry (returns 1). Otherwise the slow
-- path: queue the run, add its TTL entry (only with a TTL and a TTL system), count it, point
-- ckIndex at the variant's head, fix the master queue and clear the run's slots (returns 0).
-- KEYS: 1 message, 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck currentConcurrency, 7 env currentConcurrency, 8 ck currentDequeued,
--       9 env currentDequeued, 10 lengthCounter, 11 TTL queue, 12 env limit, 13 queue limit,
--       14 worker queue
-- ARGV: 1 run id, 2 score (timestamp), 3 payload, 4 ckIndex member, 5 master member,
--       6 key prefix, 7 counter TTL (s), 8 ttlExpiresAt ("" for none), 9 TTL member
--       <v>|<runId>|<orgId> ("" without a TTL system), 10 fast path offered ("1" or "0"),
--       11 now, 12 default env limit, 13 burst factor, 14 default queue limit,
--       15 message name pushed on the fast path
local run_id = ARGV[1]

local function fast_path_free()
  if #redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[11], 'LIMIT', 0, 1) > 0 then
    return false
  end
  local env_limit = tonumber(redis.call('GET', KEYS[12]) or ARGV[12])
  if redis.call('SCARD', KEYS[7]) >= math.floor(env_limit * tonumber(ARGV[13])) then
    return false
  end
  local queue_limit = math.min(tonumber(redis.call('GET', KEYS[13]) or ARGV[14]), env_limit)
  return redis.call('SCARD', KEYS[6]) < queue_limit
end

if ARGV[10] == '1' and fast_path_free() then
  redis.call('SET', KEYS[1], ARGV[3])
  redis.call('SADD', KEYS[6], run_id)
  redis.call('SADD', KEYS[7], run_id)
  redis.call('RPUSH', KEYS[14], ARGV[15])
  return 1
end

redis.call('SET', KEYS[1], ARGV[3])
lazy_init_length(KEYS[10], KEYS[4], ARGV[6], ARGV[7])
local added = redis.call('ZADD', KEYS[2], ARGV[2], run_id)
redis.call('ZADD', KEYS[3], ARGV[2], run_id)
if ARGV[8] ~= '' and ARGV[9] ~= '' then
  redis.call('ZADD', KEYS[11], ARGV[8], ARGV[9])
end
if added == 1 then
  redis.call('INCR', KEYS[10])
end
rescore_to_head(KEYS[4], KEYS[2], ARGV[4])
fix_master(KEYS[4], KEYS[5], ARGV[5])
drop_legacy_master(KEYS[5], ARGV[4], ARGV[5])
redis.call('SREM', KEYS[6], run_id)
redis.call('SREM', KEYS[7], run_id)
redis.call('SREM', KEYS[8], run_id)
redis.call('SREM', KEYS[9], run_id)
return 0
