-- vtime state(): a read-only view of the virtual-time keys, for the invariant checks and the
-- app. It rides at the end of a trip that is sent anyway.
-- KEYS: 1 ckVtime, 2 ckVtimeFloor, 3 ckVtimeIdle
-- ARGV: 1 listing limit, 2.. members the caller wants reported
-- Returns {floor text or false, listed (0/1), ckVtime WITHSCORES, ckVtimeIdle WITHSCORES}:
-- every entry while ckVtime has at most `listing limit` members (so a check costs what a call
-- touches, not the key count), else only the named members'.
local limit = tonumber(ARGV[1])
local floor = redis.call('GET', KEYS[2]) or false
if redis.call('ZCARD', KEYS[1]) <= limit then
  return {
    floor,
    1,
    redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'),
    redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES'),
  }
end
local tags, idle = {}, {}
for i = 2, #ARGV do
  local tag = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if tag then
    tags[#tags + 1] = ARGV[i]
    tags[#tags + 1] = tag
  end
  local parked = redis.call('ZSCORE', KEYS[3], ARGV[i])
  if parked then
    idle[#idle + 1] = ARGV[i]
    idle[#idle + 1] = parked
  end
end
return {floor, 0, tags, idle}
