-- expire_ttl(shard), flag off (expireTtlRunsCkTracked, SPEC-lifecycle 4.3): for each TTL entry
-- due by `now` (lowest first, ties by member bytes, at most batch size), drop the run from
-- everywhere, fix its CK variant's counters and ckIndex entry, and hand the worker an
-- expireTtlRun job scored by Redis TIME. A member without two `|` is skipped and kept. The
-- master queue is not touched: a CK wildcard's score stays stale until the next CK write.
-- KEYS: 1 TTL queue, 2 worker queue, 3 worker items
-- ARGV: 1 key prefix, 2 now, 3 batch size, 4 shard count (unused), 5 visibility timeout (ms)
return sweep(nil)
