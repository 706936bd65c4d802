"""Virtual time (SPEC-vtime 5) as plain values: what a call looked at, the state, the view.

The state itself lives only in Redis (`B:ckVtime`, `B:ckVtimeFloor`, `B:ckVtimeIdle`) and is
written only by the vtime Lua; these are what ckviz reads back and shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ckviz.disciplines.vtime.knobs import Version
from ckviz.model.queue import DequeuedRun


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

    @property
    def called(self) -> bool:
        """Whether the script ran (the env had room)."""
        return self.floor is not None


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
