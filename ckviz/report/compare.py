"""Comparing results files as a CI gate: may they be compared at all, by how much each figure
moved, and did the change make the queue less fair?

Files are comparable when they ran the same scenarios (the same contents: keys or trace, env,
caps, knobs), seeds and treatments; otherwise a difference between them may be the workload's,
not the code's. A figure "got worse" by the direction that matters: fairness figures down,
the light key's wait up."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ckviz.model.results import ScenarioResult, Spread
from ckviz.report.sources import Source
from ckviz.report.views import Row, ScenarioView


def mismatches(base: Source, head: Source) -> list[str]:
    """What differs between two files that makes their figures incomparable, one line each."""
    a, b = base.results, head.results
    found = []
    for what, mine, theirs in (
        ("scenarios", [s.name for s in a.scenarios], [s.name for s in b.scenarios]),
        ("seeds", a.matrix.seeds, b.matrix.seeds),
        ("treatments", a.matrix.disciplines, b.matrix.disciplines),
    ):
        if mine != theirs:
            found.append(
                f"{what}: {_listed(mine)} in {base.label}, {_listed(theirs)} in {head.label}"
            )
    found += _contents(base, head)
    return found


def _contents(base: Source, head: Source) -> list[str]:
    theirs = {s.name: s for s in head.results.scenarios}
    found = []
    for mine in base.results.scenarios:
        other = theirs.get(mine.name)
        if other is None:
            continue
        why = _differs(mine, other)
        if why:
            found.append(
                f"scenario {mine.name}: {why} differ between {base.label} and {head.label}"
            )
    return found


def _differs(a: ScenarioResult, b: ScenarioResult) -> str | None:
    if a.digest is not None and b.digest is not None and a.digest != b.digest:
        return "its contents (keys or trace, env, caps, knobs)"
    if a.weights != b.weights:
        return "its keys or weights"
    return None


def _listed(values: Sequence[str]) -> str:
    return ",".join(values) if values else "(none)"


# (name, figure of a row, higher is better)
GATED: tuple[tuple[str, Callable[[Row], Spread | None], bool], ...] = (
    ("fair-share attainment", lambda r: r.attainment, True),
    ("worst share/weight", lambda r: r.worst_share, True),
    ("Jain", lambda r: r.jain, True),
    ("light-key mean wait", lambda r: r.light_wait, False),
)


def change_pct(was: float, now: float) -> float:
    """Relative change in %, from `was` (inf when `was` is 0 and `now` is not)."""
    if was == now:
        return 0.0
    if was == 0:
        return math.copysign(math.inf, now)
    return (now - was) / abs(was) * 100


def pct_text(was: float, now: float) -> str:
    change = change_pct(was, now)
    if math.isinf(change):
        return "new" if was == 0 else "n/a"
    return f"{change:+.1f}%" if change else "±0%"


@dataclass(frozen=True)
class Regression:
    scenario: str
    treatment: str
    figure: str
    was: float
    now: float

    def __str__(self) -> str:
        return (
            f"{self.scenario}/{self.treatment}: {self.figure} {self.was:.4g} -> {self.now:.4g} "
            f"({pct_text(self.was, self.now)})"
        )


def regressions(scenarios: Sequence[ScenarioView], limit_pct: float) -> list[Regression]:
    """Each gated figure (mean over seeds) of each treatment that got worse from the first
    file to a later one by more than `limit_pct` %."""
    found = []
    for scenario in scenarios:
        if len(scenario.views) < 2:
            continue
        base = scenario.views[0]
        for head in scenario.views[1:]:
            for row in head.rows:
                was = base.row(row.label)
                if was is None:
                    continue
                for name, get, higher in GATED:
                    a, b = get(was), get(row)
                    if a is None or b is None:
                        continue
                    change = change_pct(a.mean, b.mean)
                    worse = -change if higher else change
                    if worse > limit_pct:
                        found.append(Regression(scenario.name, row.label, name, a.mean, b.mean))
    return found
