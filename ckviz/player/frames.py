"""What the panes draw, and where it comes from: a `Frame` (each lane's snapshot and the
figures beside it) made by a `FrameSource` (a simulated run's lanes, ckviz.player.lanes, or a
live queue's refreshes, ckviz.player.live_source).

Textual-free on purpose (lint-imports keeps Textual out): the panes draw a frame whoever made
it, and the player's moves (step, back and forward, play and pause: ckviz.player.tape) work over
any source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ckviz.fairness_so_far import SoFar
from ckviz.model.history import Trend
from ckviz.model.lineup import Lineup
from ckviz.model.scenario import Scenario
from ckviz.model.snapshot import Snapshot, ViewRequest
from ckviz.model.steps import StepScenario


class Origin(Protocol):
    """What made a run of frames, as the status line, the palette and the panes' view name it."""

    @property
    def title(self) -> str:
        """First on the status line: the scenario, or the queue watched."""
        ...

    @property
    def seed(self) -> str | None:
        """The seed its workload was drawn from (None: a live queue's traffic is its own)."""
        ...

    @property
    def compare(self) -> bool:
        """Two lanes side by side."""
        ...

    @property
    def light_key(self) -> str | None:
        """The key the per-key table pins on top (None: none)."""
        ...

    def key_order(self) -> Sequence[str]:
        """The keys known at the start, in the order the palette colours them."""
        ...


@dataclass(frozen=True, slots=True)
class Setup:
    """What the app runs: a scenario, a seed and one discipline per lane (a step-harness
    scenario steps call by call)."""

    scenario: Scenario | StepScenario
    seed: str
    disciplines: tuple[str, ...]
    check_invariants: bool = True  # compare the driver's books with Redis after every trip
    # --consumers as read (a mix: model/lineup.py); None: the scenario's
    consumers: int | Lineup | None = None

    @property
    def compare(self) -> bool:
        return len(self.disciplines) > 1

    @property
    def title(self) -> str:
        return self.scenario.name

    @property
    def light_key(self) -> str | None:
        return self.scenario.light_key

    def key_order(self) -> Sequence[str]:
        return list(self.scenario.weights())


@dataclass(frozen=True, slots=True)
class Frame:
    """One moment of every lane: what the panes show, and what step back returns to."""

    setup: Origin
    snapshots: tuple[Snapshot, ...]
    fairness: tuple[SoFar, ...]  # each lane's (fairness_so_far)
    trends: tuple[Trend | None, ...] = ()  # each lane's fairness per time bucket (None: none)

    @property
    def done(self) -> bool:
        return all(s.done for s in self.snapshots)

    @property
    def times(self) -> tuple[int, ...]:
        return tuple(s.t for s in self.snapshots)


class FrameSource(Protocol):
    """Where frames come from, asked on the player's one driver thread: a simulated run's
    lanes (whose `advance` steps them) or a live queue (whose `advance` reads it again)."""

    def advance(self, instant: bool, count: int = 1) -> list[Frame]:
        """The next frames: `count` rounds (or instants) of a run, or one refresh of a queue."""
        ...

    def close(self) -> None:
        """Let go of what it holds (a run's keys deleted); safe to call twice."""
        ...

    def set_view(self, view: ViewRequest) -> None:
        """The per-key rows the next frames' snapshots carry (what the panes can show)."""
        ...

    def reframe(self) -> list[Frame]:
        """A frame of the moment last made again, nothing moved (after the view changed)."""
        ...
