-- dead_letter(run), flag off (moveToDeadLetterQueueCkTracked, SPEC-lifecycle 3): take the run
-- out of its queues, fix ckIndex and the master queue, file it under deadLetter at Redis TIME
-- in seconds, then free its slots. The message key is left as it was before the nack.
-- KEYS: 1 message (unused), 2 ck queue, 3 env queue, 4 ckIndex, 5 master queue,
--       6 ck currentConcurrency, 7 env currentConcurrency, 8 ck currentDequeued,
--       9 env currentDequeued, 10 lengthCounter, 11 runningCounter, 12 deadLetter
-- ARGV: 1 run id, 2 ckIndex member, 3 master member
dead_letter_unqueue()
dead_letter_file()
return 1
