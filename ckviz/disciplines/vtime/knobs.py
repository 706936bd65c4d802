"""The vtime knobs (SPEC-vtime 5): the reference's options with its defaults, and a cell's.

A cell's knobs come from its treatment (the `--vtime-*` flags land there), else the scenario's
`[vtime]` table, else the defaults; the door passes them to every script as its ARGV tail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ckviz.model.matrix import Treatment
from ckviz.model.scenario import VtimeSettings

Version = Literal["head", "v17"]  # the reference's PR head, or the published table's V17
DEFAULT_ARRIVAL_CAP_MULTIPLIER = 2.0**32


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


class HasVtimeSettings(Protocol):
    """A scenario of either clock: its `[vtime]` table."""

    @property
    def vtime(self) -> VtimeSettings: ...


def knobs_for(scenario: HasVtimeSettings, treatment: Treatment) -> VtimeKnobs:
    """The vtime knobs of a cell: the treatment's (flags land there), else the scenario's,
    else the reference's defaults."""
    own, defaults = scenario.vtime, VtimeKnobs()
    quantum = treatment.vtime_quantum or own.quantum or defaults.quantum
    window = treatment.vtime_window or own.window or defaults.window_multiplier
    cap = treatment.vtime_arrival_cap
    if cap is None:
        cap = own.arrival_cap
    if cap is None:
        cap = defaults.arrival_cap_multiplier
    return VtimeKnobs(quantum=quantum, window_multiplier=window, arrival_cap_multiplier=cap)


def knobs_of(given: object) -> VtimeKnobs:
    """The knobs a discipline was tuned with (the defaults when it was given none)."""
    return given if isinstance(given, VtimeKnobs) else VtimeKnobs()
