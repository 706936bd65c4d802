"""The vtime knobs (SPEC-vtime 5), declared once: the reference's options with its defaults.

The scenario's `[vtime]` table, a matrix treatment's `vtime_*` fields, the `--vtime-*` flags
and their checks, the docs' table and the schemas are made from `KNOBS` (ckviz/model/knob.py
says how). A cell's knobs come from its treatment (the flags land there), else the scenario's
`[vtime]` table, else the defaults; the door passes them to every script as its ARGV tail.
This module imports nothing of ckviz but the knob's type: the files' models are made from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ckviz.model.knob import Knob, KnobFamily

Version = Literal["head", "v17"]  # the reference's PR head, or the published table's V17

QUANTUM = Knob("quantum", float, 1.0, "tag advance per serve", "Q", above=0, at_most=1e6)
WINDOW = Knob(
    "window", int, 3, "scan window multiplier: window = N x batch", "N", at_least=1, at_most=1000
)
ARRIVAL_CAP = Knob(
    "arrival_cap",
    float,
    2.0**32,
    "a new key registers at most M x quantum above the floor (0: at the floor)",
    "M",
    at_least=0,
    at_most=2.0**53,
    default_text="2^32",
)
KNOBS = KnobFamily("vtime", (QUANTUM, WINDOW, ARRIVAL_CAP))


@dataclass(frozen=True, slots=True)
class VtimeKnobs:
    """A cell's knobs (unchecked: the Lua's own tests hand it values out of range), with the
    two options no file or flag sets."""

    quantum: float = QUANTUM.default
    window: int = WINDOW.default
    arrival_cap: float = ARRIVAL_CAP.default  # a multiplier of the quantum
    state_ttl_s: int = 86_400
    idle_max_entries: int = 10_000

    @property
    def arrival_cap_tags(self) -> float:
        """What the Lua receives: multiplier x quantum (0 registers new keys at the floor)."""
        return self.arrival_cap * self.effective_quantum

    @property
    def effective_quantum(self) -> float:
        return self.quantum if self.quantum > 0 else 1.0


class HasVtimeTable(Protocol):
    """A scenario of either clock: its `[vtime]` table."""

    @property
    def vtime(self) -> object: ...


def knobs_for(scenario: HasVtimeTable, treatment: object) -> VtimeKnobs:
    """The vtime knobs of a cell: each the treatment's (flags land there), else the
    scenario's, else the reference's default."""
    given: dict[str, Any] = {}
    for knob in KNOBS.knobs:
        value = getattr(treatment, KNOBS.treatment_field(knob))
        if value is None:
            value = getattr(scenario.vtime, knob.name)
        if value is not None:
            given[knob.name] = value
    return VtimeKnobs(**given)


def knobs_of(given: object) -> VtimeKnobs:
    """The knobs a discipline was tuned with (the defaults when it was given none)."""
    return given if isinstance(given, VtimeKnobs) else VtimeKnobs()
