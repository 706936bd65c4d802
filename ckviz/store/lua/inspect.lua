-- inspect(): a read-only digest of the run queue, for the invariant checks. It rides at the
-- end of a trip the driver sends anyway, so checking costs no extra round trip.
-- KEYS: 1 ckIndex, 2 env concurrency set, 3 env queue, 4 master queue
-- ARGV: 1 key prefix, 2 master member, 3.. ckIndex members of keys the driver counts as
--       queued or holding (reported even when ckIndex lacks them)
-- Returns {SCARD env set, ZCARD env queue, master has member (0/1), ckIndex size,
--          then per CK queue: member, ZCARD queue (-1: not in ckIndex, not counted),
--          SCARD held set}
-- A CK queue outside ckIndex is not counted: its runs would still show in the env queue,
-- whose size the caller compares with the sum over ckIndex.
local prefix = ARGV[1]
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local out = {
  redis.call('SCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZSCORE', KEYS[4], ARGV[2]) and 1 or 0,
  #members,
}
local n = 4
local seen = {}
for _, member in ipairs(members) do
  seen[member] = true
  local ck_queue = prefix .. member
  out[n + 1] = member
  out[n + 2] = redis.call('ZCARD', ck_queue)
  out[n + 3] = redis.call('SCARD', ck_queue .. ':currentConcurrency')
  n = n + 3
end
for i = 3, #ARGV do
  local member = ARGV[i]
  if not seen[member] then
    out[n + 1] = member
    out[n + 2] = -1
    out[n + 3] = redis.call('SCARD', prefix .. member .. ':currentConcurrency')
    n = n + 3
  end
end
return out
