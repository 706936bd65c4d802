"""Disciplines by name: the one place a new discipline is registered."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ckviz.disciplines.base import Discipline
from ckviz.disciplines.baseline import Baseline
from ckviz.disciplines.codel import CoDel
from ckviz.disciplines.drr import DeficitRoundRobin
from ckviz.disciplines.virtual_clock import sfq, stride
from ckviz.disciplines.vtime import VirtualTime
from ckviz.disciplines.vtime.values import DEFAULT_TUNING, Tuning
from ckviz.errors import UsageError

Weights = Mapping[str, float]

# a factory gets the scenario's weights and the cell's tuning (vtime knobs, trace)
FACTORIES: dict[str, Callable[[Weights, Tuning], Discipline]] = {
    "baseline": lambda w, _: Baseline(),
    "sfq": lambda w, _: sfq(w),
    "drr": lambda w, _: DeficitRoundRobin(weights=w),
    "stride": lambda w, _: stride(w),
    "codel-sfq": lambda w, _: CoDel(sfq(w)),
    "codel-baseline": lambda w, _: CoDel(Baseline()),
    "vtime": lambda w, t: VirtualTime("vtime", t),
    "vtime-v17": lambda w, t: VirtualTime("vtime-v17", t),
}

DEFAULT_DISCIPLINES: tuple[str, ...] = tuple(FACTORIES)

# One line per discipline, for `ckviz --help`: the registered ones, then the step harness's
# own (their scripts live in Redis: ckviz/disciplines/vtime/).
SUMMARIES: dict[str, str] = {
    "baseline": "trigger.dev's age order: oldest CK queue head first; never rescores",
    "sfq": "start-time fair queueing: per-key virtual clock, idle keys rejoin at the floor",
    "drr": "deficit round robin over the active keys",
    "stride": "stride scheduling: sfq's clock in passes of 10^6/weight",
    "codel-sfq": "sfq, plus CoDel: a key waiting over 200 ms for 100 ms jumps the queue",
    "codel-baseline": "baseline, plus the same CoDel escalation",
    "vtime": "native virtual time kept in Redis by the Lua (trigger.dev PR #4367's head)",
    "vtime-v17": "native virtual time as published (V17): drained keys re-register at the floor",
}


def check_discipline(name: str, where: str = "--discipline", also: Sequence[str] = ()) -> str:
    """`name` if a discipline is registered under it (or is one of `also`: the names another
    harness runs), else the usage error naming `where` and the choices."""
    if name not in FACTORIES and name not in also:
        known = ", ".join(dict.fromkeys([*FACTORIES, *also]))
        raise UsageError(f"{where}: unknown discipline '{name}' (choose from {known})")
    return name


def make_discipline(
    name: str, weights: Weights | None = None, tuning: Tuning = DEFAULT_TUNING
) -> Discipline:
    """A fresh discipline; an unknown name is a usage error."""
    return FACTORIES[check_discipline(name, "discipline")](weights or {}, tuning)
