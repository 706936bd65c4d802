"""`ckviz report BASE HEAD --fail-if-worse [PCT]`: which gated figures got worse from the first
file to a later one by more than PCT % (or are not a finite number), each with its paired
difference and 95% interval, and the gate's outcome said first in every output: a line on the
terminal, the Markdown's and the HTML's first line, `::error` lines under GitHub Actions."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ckviz.fairness_intervals import Interval, paired_difference
from ckviz.model.results import Spread
from ckviz.outputs.ci_log import annotation_data, annotation_property, own_command, under_actions
from ckviz.report.claims import interval_text, signed
from ckviz.report.compare import change_pct, pct_text
from ckviz.report.views import Row, ScenarioView

DEFAULT_LIMIT = 5.0  # % when --fail-if-worse is given bare


@dataclass(frozen=True)
class Gated:
    """A figure the gate watches: its mean over seeds, its value per seed, which way is better."""

    name: str
    spread: Callable[[Row], Spread | None]
    by_seed: Callable[[Row], dict[str, float]]
    higher: bool


GATED = (
    Gated("fair-share attainment", lambda r: r.attainment, lambda r: r.attainment_by_seed, True),
    Gated("worst share/weight", lambda r: r.worst_share, lambda r: r.worst_share_by_seed, True),
    Gated("Jain", lambda r: r.jain, lambda r: r.jain_by_seed, True),
    Gated("light-key mean wait", lambda r: r.light_wait, lambda r: r.light_wait_by_seed, False),
)


@dataclass(frozen=True)
class Regression:
    scenario: str
    treatment: str
    figure: str
    was: float
    now: float
    difference: Interval | None = None  # head less base, paired by seed

    @property
    def finite(self) -> bool:
        return math.isfinite(self.was) and math.isfinite(self.now)

    def __str__(self) -> str:
        moved = f"{self.scenario}/{self.treatment}: {self.figure} {self.was:.4g} -> {self.now:.4g}"
        if not self.finite:
            return f"{moved} (not a finite number)"
        return f"{moved} ({pct_text(self.was, self.now)}; {self._interval()})"

    def _interval(self) -> str:
        d = self.difference
        if d is None:
            return "no seed in common"
        if self.figure == "fair-share attainment":
            return f"difference {signed(d.estimate)}, {interval_text(d)}"
        if d.low is None or d.high is None:
            return f"difference {d.estimate:+.4g}, one sample: no interval"
        return (
            f"difference {d.estimate:+.4g}, 95% interval {d.low:+.4g}..{d.high:+.4g}, "
            f"paired over {d.seeds} seeds"
        )


def regressions(scenarios: Sequence[ScenarioView], limit_pct: float) -> list[Regression]:
    """Each gated figure (mean over seeds) of each treatment that got worse from the first
    file to a later one by more than `limit_pct` %, or is not a finite number in either."""
    found = []
    for scenario in scenarios:
        base = scenario.views[0] if scenario.views else None
        for head in scenario.views[1:]:
            for row in head.rows:
                was = base.row(row.label) if base else None
                if was is not None:
                    found += _worse(scenario.name, was, row, limit_pct)
    return found


def _worse(scenario: str, was: Row, now: Row, limit_pct: float) -> list[Regression]:
    found = []
    for g in GATED:
        a, b = g.spread(was), g.spread(now)
        if a is None or b is None:
            continue
        moved = Regression(scenario, now.label, g.name, a.mean, b.mean, _difference(g, was, now))
        if not moved.finite:
            found.append(moved)
            continue
        change = change_pct(a.mean, b.mean)
        if (-change if g.higher else change) > limit_pct:
            found.append(moved)
    return found


def _difference(g: Gated, was: Row, now: Row) -> Interval | None:
    if g.name == "fair-share attainment":
        return paired_difference(
            now.attainment_by_seed,
            was.attainment_by_seed,
            now.resamples_by_seed,
            was.resamples_by_seed,
        )
    return paired_difference(g.by_seed(now), g.by_seed(was), {}, {})


@dataclass(frozen=True)
class Gate:
    """The gate's outcome: what failed it (none: passed) and the limit it held to."""

    limit: float
    failures: list[Regression]

    @property
    def failed(self) -> bool:
        return bool(self.failures)

    @property
    def headline(self) -> str:
        """The one line said first everywhere."""
        flag = f"--fail-if-worse {self.limit:g}%"
        if not self.failures:
            return f"gate passed ({flag}): no figure got worse by more than {self.limit:g}%"
        more = f" (and {len(self.failures) - 1} more)" if len(self.failures) > 1 else ""
        return f"gate failed ({flag}): {self.failures[0]}{more}"

    def annotations(self) -> list[str]:
        """Under GitHub Actions, an `::error` line per failure (ckviz's own commands)."""
        if not under_actions():
            return []
        lines = []
        for r in self.failures:
            title = annotation_property(f"ckviz gate failed: {r.scenario}/{r.treatment}")
            lines.append(own_command(f"::error title={title}::{annotation_data(str(r))}"))
        return lines


def gate(scenarios: Sequence[ScenarioView], limit: float) -> Gate:
    return Gate(limit, regressions(scenarios, limit))
