"""Disciplines by name: the one place a new discipline is registered, with its one-line
summary (`--help`, the docs' table) and the rule its first key wins by (the app)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ckviz.defaults import MAX_CONSUMERS
from ckviz.disciplines.base import (
    DEFAULT_TUNING,
    Discipline,
    KeepsStateInRedis,
    Listed,
    OnSteps,
    Tuning,
    UnderConcurrency,
    Weights,
)
from ckviz.disciplines.baseline import Baseline
from ckviz.disciplines.codel import CoDel
from ckviz.disciplines.drr import DeficitRoundRobin
from ckviz.disciplines.virtual_clock import sfq, stride
from ckviz.disciplines.vtime import discipline as vtime
from ckviz.errors import UsageError
from ckviz.model.lineup import FLAG_OFF, Lineup, parse_lineup
from ckviz.model.matrix import Treatment

# a factory gets the scenario's weights and the cell's tuning (its knobs, trace)
REGISTRY: dict[str, Listed] = {
    "baseline": Listed(
        lambda w, _: Baseline(),
        "trigger.dev's age order: oldest CK queue head first; never rescores",
        "lowest ckIndex score = oldest head; ties by member bytes (Redis's order)",
    ),
    "sfq": Listed(
        lambda w, _: sfq(w),
        "start-time fair queueing: per-key virtual clock, idle keys rejoin at the floor",
        "lowest start tag (clock, at least the floor); "
        "ties: lower ckIndex score as read, then member",
    ),
    "drr": Listed(
        lambda w, _: DeficitRoundRobin(weights=w),
        "deficit round robin over the active keys",
        "the cursor's key while its deficit covers a run, then the next in the ring",
    ),
    "stride": Listed(
        lambda w, _: stride(w),
        "stride scheduling: sfq's clock in passes of 10^6/weight",
        "lowest pass (at least the floor); ties: lower ckIndex score as read, then member",
    ),
    "codel-sfq": Listed(
        lambda w, _: CoDel(sfq(w)),
        "sfq, plus CoDel: a key waiting over 200 ms for 100 ms jumps the queue",
        "escalating keys (head above target) first, then sfq's order",
    ),
    "codel-baseline": Listed(
        lambda w, _: CoDel(Baseline()),
        "baseline, plus the same CoDel escalation",
        "escalating keys (head above target) first, then lower ckIndex score as read, then member",
    ),
    **vtime.LISTED,  # native virtual time: its state, scripts and knobs live in Redis
}

FACTORIES: dict[str, Callable[[Weights, Tuning], Discipline]] = {
    name: listed.make for name, listed in REGISTRY.items()
}
DEFAULT_DISCIPLINES: tuple[str, ...] = tuple(REGISTRY)
SUMMARIES: dict[str, str] = {name: listed.summary for name, listed in REGISTRY.items()}
RULES: dict[str, str] = {name: listed.rule for name, listed in REGISTRY.items()}
# the disciplines whose order lives in Redis: no client-side state, so any number of
# consumers call the same atomic scripts (the step harness and stress run these)
IN_REDIS: tuple[str, ...] = tuple(
    name for name, listed in REGISTRY.items() if not listed.make({}, DEFAULT_TUNING).door.rescores
)
# the first of them beside the flag-off baseline: what a rollout's example turns on, what
# stress runs unless told, what the app runs in place of a discipline a scenario's clock lacks
FIRST_REDIS_SIDE: str = next(name for name in IN_REDIS if name != FLAG_OFF)
MIX_EXAMPLE = f"{FIRST_REDIS_SIDE}:2,{FLAG_OFF}:1"  # what help and error lines show


def check_discipline(name: str, where: str = "--discipline") -> str:
    """`name` if a discipline is registered under it (every clock's are), else the usage
    error naming `where` and the choices. A name is checked once, where it comes in (a flag,
    a file, the app's arguments: check_treatment for a treatment); what runs it takes it as
    checked (make_discipline, tuning_for)."""
    if name not in REGISTRY:
        known = ", ".join(REGISTRY)
        raise UsageError(f"{where}: unknown discipline '{name}' (choose from {known})")
    return name


def check_treatment(treatment: Treatment, where: str) -> Treatment:
    """`treatment` if every discipline its consumers run is registered and, in a mix, keeps
    its order in Redis; else the usage error naming `where`."""
    if treatment.lineup is None:
        check_discipline(treatment.discipline, where)
        return treatment
    for name in treatment.disciplines:
        check_discipline(name, where)
        if name not in IN_REDIS:
            raise UsageError(
                f"{where}: '{name}' ranks in each consumer's own process; a mix takes "
                f"disciplines whose order lives in Redis ({', '.join(IN_REDIS)})"
            )
    return treatment


def check_mix(text: str, where: str) -> Lineup:
    """A mix (MIX_EXAMPLE) read and checked, one way for the flag, a matrix's
    treatments and a scenario's `consumers`: the usage error names `where` otherwise."""
    try:
        lineup = parse_lineup(text, MAX_CONSUMERS)
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None
    check_treatment(Treatment.mixed(lineup), where)
    return lineup


def check_scenario_mix(mix: Lineup | None, where: str) -> None:
    """A scenario's mix (its `mix`, read with the file), if any, names disciplines that can
    share a queue."""
    if mix is not None:
        check_treatment(Treatment.mixed(mix), f"{where}: consumers")


def runs_in_mix(name: str) -> bool:
    """Whether consumers of discipline `name` can share a queue with others (its order lives
    in Redis, so a baseline consumer's calls see the same state)."""
    return name in IN_REDIS


def tuning_for(name: str, scenario: object, treatment: Treatment, trace: bool = False) -> Tuning:
    """What a cell gives discipline `name` beyond weights: its knobs (from the treatment,
    then `scenario`, then its defaults) and whether its dequeue says what it looked at.
    `name` was checked where it came in (check_discipline)."""
    knobs = REGISTRY[name].knobs
    return Tuning(knobs(scenario, treatment) if knobs is not None else None, trace)


def on_steps(name: str, check: bool, mixed: bool = False) -> OnSteps | None:
    """What the step clock keeps of discipline `name` between its calls, if its state lives in
    Redis (its door reads it); None for one whose only state is the queues."""
    discipline = make_discipline(name)
    if discipline.door.reads is None:
        return None
    return cast(KeepsStateInRedis, discipline).on_steps(check, mixed)


def under_concurrency(name: str) -> UnderConcurrency | None:
    """Discipline `name`'s own rules under concurrent callers, if its state lives in Redis."""
    discipline = make_discipline(name)
    if discipline.door.reads is None:
        return None
    return cast(KeepsStateInRedis, discipline).under_concurrency()


def make_discipline(
    name: str, weights: Weights | None = None, tuning: Tuning = DEFAULT_TUNING
) -> Discipline:
    """A fresh discipline of `name`, checked where it came in (check_discipline)."""
    return REGISTRY[name].make(weights or {}, tuning)
