"""A production run queue, watched read-only (SPEC-live): its queues found (`discover`), one
refresh of one (`reading.read_picture` -> `picture.LivePicture`), the next dequeue's order
(`order`), what a refresh costs the server (`cost`), and a producer on the real layout for
the tests (`producer`); its traffic recorded as a trace (`capture`) and its whole state read
(`state`) for whatif's fork."""
