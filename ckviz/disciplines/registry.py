"""Disciplines by name: the one place a new discipline is registered."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ckviz.disciplines.base import Discipline
from ckviz.disciplines.baseline import Baseline
from ckviz.disciplines.codel import CoDel
from ckviz.disciplines.drr import DeficitRoundRobin
from ckviz.disciplines.virtual_clock import sfq, stride

Weights = Mapping[str, float]

FACTORIES: dict[str, Callable[[Weights], Discipline]] = {
    "baseline": lambda w: Baseline(),
    "sfq": sfq,
    "drr": lambda w: DeficitRoundRobin(weights=w),
    "stride": stride,
    "codel-sfq": lambda w: CoDel(sfq(w)),
    "codel-baseline": lambda w: CoDel(Baseline()),
}

DEFAULT_DISCIPLINES: tuple[str, ...] = tuple(FACTORIES)


def make_discipline(name: str, weights: Weights | None = None) -> Discipline:
    """A fresh discipline; KeyError names an unknown one."""
    return FACTORIES[name](weights or {})
