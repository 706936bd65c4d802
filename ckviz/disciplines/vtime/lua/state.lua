-- vtime state(): a read-only view of the virtual-time keys, for the invariant checks and the
-- app. It rides at the end of a trip that is sent anyway.
-- KEYS: 1 ckVtime, 2 ckVtimeFloor, 3 ckVtimeIdle
-- ARGV: 1 listing limit, 2.. members the caller wants reported
-- Returns {floor text or false, listed (0/1), ckVtime WITHSCORES, ckVtimeIdle WITHSCORES}:
-- all of ckVtime while it has at most `listing limit` members, else only the named members'
-- tags; the idle set whole while both have at most `listing limit` members, else the parked
-- tags of the members reported. So a check costs what a call touches, not the key count (the
-- idle set keeps up to 10,000 parked keys long after their queues drained).
local limit = tonumber(ARGV[1])
local floor = redis.call('GET', KEYS[2]) or false
local listed = redis.call('ZCARD', KEYS[1]) <= limit
local tags = listed and redis.call('ZRANGE', KEYS[1], '0', '-1', 'WITHSCORES') or {}
if listed and redis.call('ZCARD', KEYS[3]) <= limit then
  return {floor, 1, tags, redis.call('ZRANGE', KEYS[3], '0', '-1', 'WITHSCORES')}
end
local idle, seen = {}, {}
local function parked(member)
  if seen[member] then return end
  seen[member] = true
  local tag = redis.call('ZSCORE', KEYS[3], member)
  if tag then
    idle[#idle + 1] = member
    idle[#idle + 1] = tag
  end
end
for i = 1, #tags, 2 do
  parked(tags[i])
end
for i = 2, #ARGV do
  local member = ARGV[i]
  if not listed and not seen[member] then
    local tag = redis.call('ZSCORE', KEYS[1], member)
    if tag then
      tags[#tags + 1] = member
      tags[#tags + 1] = tag
    end
  end
  parked(member)
end
return {floor, listed and 1 or 0, tags, idle}
