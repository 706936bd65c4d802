-- vtime expire_ttl(shard), HEAD (expireTtlRunsCkVtimeTracked, SPEC-lifecycle 4.3): the
-- flag-off sweep, with vdrain of each CK variant the sweep leaves empty (its vtime keys derived
-- from its base, as the reference does). V17 sweeps with the flag-off script.
-- KEYS: 1 TTL queue, 2 worker queue, 3 worker items, then the door's state keys (4 ckVtime,
--       5 ckVtimeFloor, 6 ckVtimeIdle; unused: ckviz's one base queue derives the same names)
-- ARGV: 1 key prefix, 2 now, 3 batch size, 4 shard count (unused), 5 visibility timeout (ms),
--       then the vtime tail from 6 (version, quantum, window multiplier, state ttl, idle max
--       entries, arrival cap, trace)
local ttl = vtime_tail(6).ttl
return sweep(function(base, raw)
  vdrain(ARGV[1] .. raw, base .. ':ckVtime', base .. ':ckVtimeIdle', raw, ttl)
end)
