"""Virtual time (SPEC-vtime 5) as plain values: the knobs, what a call looked at, the state.

The state itself lives only in Redis (`B:ckVtime`, `B:ckVtimeFloor`, `B:ckVtimeIdle`) and is
written only by the vtime Lua; these are what ckviz reads back and shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ckviz.model.queue import DequeuedRun

Version = Literal["head", "v17"]
DEFAULT_ARRIVAL_CAP_MULTIPLIER = 2.0**32
STATE_KEYS = ("ckVtime", "ckVtimeFloor", "ckVtimeIdle")  # each `B:<name>`, in the scripts' order


@dataclass(frozen=True, slots=True)
class VtimeKnobs:
    """The reference's options, with its defaults."""

    quantum: float = 1.0
    window_multiplier: int = 3
    state_ttl_s: int = 86_400
    idle_max_entries: int = 10_000
    arrival_cap_multiplier: float = DEFAULT_ARRIVAL_CAP_MULTIPLIER

    @property
    def arrival_cap(self) -> float:
        """What the Lua receives: multiplier x quantum (0 registers new keys at the floor)."""
        return self.arrival_cap_multiplier * self.effective_quantum

    @property
    def effective_quantum(self) -> float:
        return self.quantum if self.quantum > 0 else 1.0


@dataclass(frozen=True, slots=True)
class Tuning:
    """What a discipline may be given beyond weights: the vtime knobs, and whether its
    dequeue should say what it looked at (the app asks; headless runs never do)."""

    vtime: VtimeKnobs = VtimeKnobs()
    trace: bool = False


DEFAULT_TUNING = Tuning()


def number_text(value: float) -> str:
    """A number as the Lua reads it back exactly (integers without a decimal point)."""
    return repr(float(value)) if value != int(value) else str(int(value))


def vtime_tail(version: Version, knobs: VtimeKnobs, trace: bool) -> tuple[str | int, ...]:
    """The ARGV every vtime script takes after its usual ones (each reads what it needs)."""
    return (
        version,
        number_text(knobs.quantum),
        knobs.window_multiplier,
        knobs.state_ttl_s,
        knobs.idle_max_entries,
        number_text(knobs.arrival_cap),
        int(trace),
    )


@dataclass(frozen=True, slots=True)
class Visit:
    """One candidate a dequeue call looked at: in which pass, and what became of it."""

    passno: int
    key: str
    fate: str  # served, limit, not-ready, empty, expired, orphan, outside-window, ...
    drain: str  # parked, removed or ''
    tag: float | None  # served: the key's new tag


@dataclass(frozen=True, slots=True)
class VtimeDequeue:
    """A vtime dequeue call's reply: the runs served, the trace, the floor it ended with."""

    runs: list[DequeuedRun]
    visits: list[Visit]
    floor: float | None  # None: the env was full, the call did nothing


@dataclass(frozen=True, slots=True)
class VtimeState:
    """ckVtime, its floor and the idle set, as Redis holds them (all of it when `listed`,
    else only the keys asked for)."""

    floor: float | None  # None: no floor key
    listed: bool
    tags: dict[str, float]  # key -> tag, in ckVtime order (the members of this base queue)
    idle: dict[str, float]
    foreign: tuple[str, ...]  # ckVtime members that are not CK queues of this base queue


@dataclass(frozen=True, slots=True)
class VtimeView:
    """What the discipline pane shows: the state as last read and the last call's passes."""

    version: Version
    state: VtimeState | None = None
    visits: tuple[Visit, ...] = ()
    call_floor: float | None = None  # the floor the last call ended with
    traced: bool = False  # whether calls report their visits
    calls: int = field(default=0)  # dequeue calls seen
