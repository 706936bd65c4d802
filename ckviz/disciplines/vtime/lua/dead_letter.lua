-- vtime dead_letter(run), HEAD (moveToDeadLetterQueueCkVtimeTracked, SPEC-lifecycle 3): the
-- flag-off dead-letter with vdrain(v) between the reindex and the remaster. Usually the
-- variant has no ckVtime entry (the serve that emptied it removed it); one is left only when a
-- flag-off instance emptied it (stranded), and is then parked unconditionally and removed.
-- V17 dead-letters with the flag-off script.
-- KEYS: 1-12 as the flag-off dead-letter (message (unused), ck queue, env queue, ckIndex,
--       master queue, the four slot sets, lengthCounter, runningCounter, deadLetter),
--       13 ckVtime, 14 ckVtimeFloor (unused), 15 ckVtimeIdle
-- ARGV: 1 run id, 2 ckIndex member, 3 master member, then the vtime tail from 4 (version,
--       quantum, window multiplier, state ttl, idle max entries, arrival cap, trace)
dead_letter_unqueue()
vdrain(KEYS[2], KEYS[13], KEYS[15], ARGV[2], vtime_tail(4).ttl)
dead_letter_file()
return 1
