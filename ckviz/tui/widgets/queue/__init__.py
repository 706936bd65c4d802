"""The queue's panes: ckIndex, the per-key queues, the held slots, the event log, the key x time
strip."""
