"""Disciplines by name: the one place a new discipline is registered."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ckviz.disciplines.base import Discipline
from ckviz.disciplines.baseline import Baseline
from ckviz.disciplines.codel import CoDel
from ckviz.disciplines.drr import DeficitRoundRobin
from ckviz.disciplines.virtual_clock import sfq, stride
from ckviz.errors import UsageError

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


def check_discipline(name: str, where: str = "--discipline", also: Sequence[str] = ()) -> str:
    """`name` if a discipline is registered under it (or is one of `also`: the names another
    harness runs), else the usage error naming `where` and the choices."""
    if name not in FACTORIES and name not in also:
        known = ", ".join(dict.fromkeys([*FACTORIES, *also]))
        raise UsageError(f"{where}: unknown discipline '{name}' (choose from {known})")
    return name


def make_discipline(name: str, weights: Weights | None = None) -> Discipline:
    """A fresh discipline; an unknown name is a usage error."""
    return FACTORIES[check_discipline(name, "discipline")](weights or {})
