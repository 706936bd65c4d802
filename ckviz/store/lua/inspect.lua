-- inspect(): a read-only digest of the run queue, for the invariant checks. It rides at the
-- end of a trip the driver sends anyway, so checking costs no extra round trip.
-- KEYS: 1 ckIndex, 2 env concurrency set, 3 env queue, 4 master queue
-- ARGV: 1 key prefix, 2 master member, 3.. ckIndex members of keys the driver counts as
--       queued or holding (reported even when ckIndex lacks them)
-- Returns {SCARD env set, ZCARD env queue, master has member (0/1), ckIndex size,
--          then per CK queue: member, in ckIndex (0/1), ZCARD queue, SCARD held set}
local prefix = ARGV[1]
local out = {
  redis.call('SCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZSCORE', KEYS[4], ARGV[2]) and 1 or 0,
  0,
}
local seen = {}
local function row(member, in_index)
  seen[member] = true
  local ck_queue = prefix .. member
  out[#out + 1] = member
  out[#out + 1] = in_index
  out[#out + 1] = redis.call('ZCARD', ck_queue)
  out[#out + 1] = redis.call('SCARD', ck_queue .. ':currentConcurrency')
end
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
out[4] = #members
for _, member in ipairs(members) do
  row(member, 1)
end
for i = 3, #ARGV do
  if not seen[ARGV[i]] then
    row(ARGV[i], 0)
  end
end
return out
