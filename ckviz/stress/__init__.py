"""`ckviz stress`: real concurrency against one server, for the disciplines whose state lives
in Redis. Consumers are threads, each with its own connection, calling the real scripts with
no turn-taking; the books they keep and a read-only watcher check the queue's invariants."""
