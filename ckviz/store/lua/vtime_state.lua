-- vtime state(): a read-only view of the virtual-time keys, for the invariant checks and the
-- app. It rides at the end of a trip that is sent anyway.
-- KEYS: 1 ckVtime, 2 ckVtimeFloor, 3 ckVtimeIdle
-- Returns {floor text or false, ckVtime WITHSCORES, ckVtimeIdle WITHSCORES}
return {
  redis.call('GET', KEYS[2]) or false,
  redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'),
  redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES'),
}
