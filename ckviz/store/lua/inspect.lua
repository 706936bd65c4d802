-- inspect(): a read-only digest of the run queue, for the invariant checks. It rides at the
-- end of a trip the driver sends anyway, so checking costs no extra round trip.
-- The driver's ckIndex read is a plain ZRANGE beside it in the same trip, not a read in here:
-- handing ckIndex to Lua and back converted every entry twice (at 10,000 keys two thirds of
-- this script's time, and of a serve's).
-- KEYS: 1 ckIndex, 2 env concurrency set, 3 env queue, 4 master queue, 5 lengthCounter
-- ARGV: 1 key prefix, 2 master member, 3 listing limit, 4 held-set suffix, 5.. ckIndex
--       members of keys the caller wants counted (reported even when ckIndex lacks them)
-- Returns {SCARD env set, ZCARD env queue, master has member (0/1), ckIndex size, ckIndex
--          listed (0/1), lengthCounter (-1 when the key is absent), then per CK queue: member, ZCARD queue (-1 when not in ckIndex: not
--          counted), SCARD held set}
-- ckIndex is listed, every member counted, while it has at most `listing limit` members; past
-- that only the named CK queues are, so a check costs what the trip touched, not the key count.
local prefix = ARGV[1]
local limit = tonumber(ARGV[3])
local members = limit > 0 and redis.call('ZRANGE', KEYS[1], 0, limit) or {}
local listed = limit > 0 and #members <= limit
local out = {
  redis.call('SCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZSCORE', KEYS[4], ARGV[2]) and 1 or 0,
  listed and #members or redis.call('ZCARD', KEYS[1]),
  listed and 1 or 0,
  tonumber(redis.call('GET', KEYS[5]) or '-1'),
}
local n = #out
local function row(member, queued)
  out[n + 1] = member
  out[n + 2] = queued
  out[n + 3] = redis.call('SCARD', prefix .. member .. ARGV[4])
  n = n + 3
end
local seen = {}
if listed then
  for _, member in ipairs(members) do
    seen[member] = true
    row(member, redis.call('ZCARD', prefix .. member))
  end
end
for i = 5, #ARGV do
  local member = ARGV[i]
  if not seen[member] then
    seen[member] = true
    local indexed = not listed and redis.call('ZSCORE', KEYS[1], member)
    row(member, indexed and redis.call('ZCARD', prefix .. member) or -1)
  end
end
return out
