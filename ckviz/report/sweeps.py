"""Sweeps in a report: the variants of one swept scenario side by side against the swept
value, one line per treatment (and per results file when there are several).

Which scenario is a variant of which, and at what value, is read from the results' `sweep`
field, never parsed out of the variant's name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ckviz.model.results import Spread
from ckviz.report.sources import Source
from ckviz.report.views import Row, ScenarioView

SweepValue = int | float
WIDE = 100  # values spanning 100x or more are drawn on a log axis


@dataclass(frozen=True)
class SweepPoint:
    value: SweepValue
    row: Row  # the treatment's figures on the variant at this value


@dataclass(frozen=True)
class SweepLine:
    """One treatment in one results file, across the swept values (ascending)."""

    label: str  # the treatment, with its file's label when several files hold the sweep
    points: list[SweepPoint]

    def figure(self, get: Callable[[Row], Spread | None]) -> list[tuple[SweepValue, Spread]]:
        """(value, figure) at every value where the figure exists."""
        return [(p.value, s) for p in self.points if (s := get(p.row)) is not None]


@dataclass(frozen=True)
class SweepView:
    scenario: str  # the swept scenario's name
    parameter: str  # `light.count`, `env_limit`, ...
    values: list[SweepValue]  # every value any file holds, ascending
    light_key: str | None
    unit: str
    lines: list[SweepLine]

    @property
    def log_x(self) -> bool:
        """A log axis when the values are all positive and span WIDE times or more."""
        return self.values[0] > 0 and self.values[-1] >= WIDE * self.values[0]

    @property
    def title(self) -> str:
        return f"Sweep: {self.scenario} over {self.parameter}"


# (scenario, parameter) -> file label -> [(value, variant name)]
_Found = dict[tuple[str, str], dict[str, list[tuple[SweepValue, str]]]]


def sweep_views(sources: Sequence[Source], scenarios: Sequence[ScenarioView]) -> list[SweepView]:
    """One view per swept scenario (and parameter) holding two or more values."""
    found: _Found = {}
    for source in sources:
        for entry in source.results.scenarios:
            if entry.sweep is not None and entry.runs:
                where = found.setdefault((entry.sweep.scenario, entry.sweep.parameter), {})
                where.setdefault(source.label, []).append((entry.sweep.value, entry.name))
    by_name = {s.name: s for s in scenarios}
    views = []
    for (scenario, parameter), files in found.items():
        values = sorted({v for entries in files.values() for v, _ in entries})
        if len(values) < 2:
            continue
        variants = [by_name[name] for entries in files.values() for _, name in entries]
        views.append(
            SweepView(
                scenario=scenario,
                parameter=parameter,
                values=values,
                light_key=next((v.light_key for v in variants if v.light_key), None),
                unit=variants[0].unit,
                lines=_lines(files, by_name),
            )
        )
    return views


def _lines(
    files: dict[str, list[tuple[SweepValue, str]]], by_name: dict[str, ScenarioView]
) -> list[SweepLine]:
    several = len(files) > 1
    lines = []
    for source, entries in files.items():
        ordered = sorted(entries)
        rows = [
            (value, view)
            for value, name in ordered
            for view in by_name[name].views
            if view.source == source
        ]
        labels = list(dict.fromkeys(r.label for _, view in rows for r in view.rows))
        for label in labels:
            points = [
                SweepPoint(value, row)
                for value, view in rows
                if (row := view.row(label)) is not None
            ]
            lines.append(SweepLine(f"{label} · {source}" if several else label, points))
    return lines


def value_text(value: SweepValue) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"
