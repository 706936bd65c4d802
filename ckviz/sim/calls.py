"""What the step clock records of its calls: each call, and each run held."""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.disciplines.vtime import Visit


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One step: what the call served and, for vtime, every candidate it looked at."""

    step: int
    called: bool  # False: the env was full, no Lua call
    backlog_keys: int  # keys with runs not yet served, counted before the call
    served: tuple[str, ...]  # keys, in serve order
    visits: tuple[Visit, ...]  # vtime only: pass 1 then pass 2
    floor: float | None  # vtime only: the floor the call ended with
    consumer: str = "c1"  # whose call it was


@dataclass(slots=True)
class InFlight:
    """A run a call took, held until `served_at + hold_steps`."""

    key: str
    run_id: str
    served_at: int
