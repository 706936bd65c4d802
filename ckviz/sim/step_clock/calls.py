"""What the step clock records of its calls (its books are the ledger's)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One step: what the call served and, for a discipline in Redis, what else its dequeue
    reported (the candidates each pass looked at, the floor it ended with)."""

    step: int
    called: bool  # False: the env was full, no Lua call
    backlog_keys: int  # keys with runs not yet served, counted before the call
    served: tuple[str, ...]  # keys, in serve order
    report: object | None  # its dequeue's report beyond the runs (None: plain runs, or no call)
    consumer: str = "c1"  # whose call it was
    heads: tuple[float, ...] = ()  # the served runs' scores, as ckIndex ranked them (the why)
