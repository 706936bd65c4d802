"""The report's tables, as plain rows of text that the HTML and Markdown writers both render."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_jsonable_python

from ckviz.model.results import CheckResult, Spread
from ckviz.report.sweeps import SweepView, value_text
from ckviz.report.views import Row, ScenarioView

# Figures other parts of ckviz may add to a run's metrics: shown when present, skipped when not.
OPTIONAL_FIGURES = {
    "steps": "Step harness: micro timings",
    "key_serves": "Virtual time: serves per key (starvation)",
    "vtime_floor_final": "Virtual time: final floor",
}

MAX_ROWS = 60
WORST_SHARE = "worst share/weight"
DEFINITIONS = (
    f"{WORST_SHARE}: of the dequeues made while two or more keys had runs waiting, each such "
    "key's share divided by its fair (weight-proportional) share, for the key that fared "
    "worst; 1 = fair, 0 = starved. Jain: Jain's index (sum x)^2 / (n sum x^2) of those "
    "ratios, 1 = all equal. Both are means over seeds with (min..max). Mean wait: dequeue time "
    "minus arrival, logical ms, averaged over a key's runs; the light key is the one the "
    "scenario names as its headline, the worst-served key the one with the largest mean wait "
    "(named for the first seed). Makespan: when the last run was dequeued."
)


@dataclass(frozen=True)
class Table:
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""


def spread(s: Spread | None, digits: int = 5) -> str:
    if s is None:
        return "-"
    if s.min == s.max:
        return f"{s.mean:.{digits}f}"
    return f"{s.mean:.{digits}f} ({s.min:.{digits}f}..{s.max:.{digits}f})"


def wait(s: Spread | None) -> str:
    return spread(s, 1)


def figures_table(scenario: ScenarioView) -> Table:
    several = len(scenario.views) > 1
    light = scenario.light_key
    header = ["treatment", *(["results"] if several else [])]
    header += [f"{WORST_SHARE} mean (min..max)", "Jain mean (min..max)"]
    unit = scenario.unit
    header += [f"{light} mean wait {unit}"] if light else []
    header += ["worst-served key (first seed)", f"worst-key mean wait {unit}", f"makespan {unit}"]
    rows = []
    for label in scenario.labels:
        for view in scenario.views:
            r = view.row(label)
            if r is not None:
                rows.append(_figure_cells(r, view.source if several else None, light is not None))
    return Table(scenario.name, header, rows)


def _figure_cells(r: Row, source: str | None, light: bool) -> list[str]:
    cells = [r.label, *([source] if source is not None else [])]
    cells += [spread(r.worst_share), spread(r.jain)]
    cells += [wait(r.light_wait)] if light else []
    return [*cells, r.worst_key, wait(r.worst_wait), spread(r.makespan, 0)]


COST = "ms per dequeued run (timing)"
COST_NOTE = (
    f"{COST}: each run's wall_clock_ms over its dequeued runs, mean (min..max) over seeds; a "
    "timing figure, which depends on the machine and its load (every other figure is "
    "deterministic)."
)


def sweep_table(sweep: SweepView) -> Table:
    """A row per swept value and line: the figures the sweep's plots draw."""
    light = sweep.light_key
    header = [
        sweep.parameter,
        "treatment",
        f"{WORST_SHARE} mean (min..max)",
        "Jain mean (min..max)",
    ]
    header += [f"{light} mean wait {sweep.unit}"] if light else []
    header.append(COST)
    rows = []
    for value in sweep.values:
        for line in sweep.lines:
            row = next((p.row for p in line.points if p.value == value), None)
            if row is None:
                continue
            cells = [value_text(value), line.label, spread(row.worst_share), spread(row.jain)]
            cells += [wait(row.light_wait)] if light else []
            rows.append([*cells, spread(row.cost_per_run, 3)])
    return Table(sweep.title, header, rows, COST_NOTE)


def optional_tables(scenario: ScenarioView) -> list[Table]:
    """One table per optional figure some run carries (first seed of each treatment)."""
    tables = []
    several = len(scenario.views) > 1
    for name, title in OPTIONAL_FIGURES.items():
        found = [
            (f"{row.label} · {view.source}" if several else row.label, value)
            for view in scenario.views
            for row in view.rows
            if (value := to_jsonable_python(getattr(row.first.metrics, name, None))) is not None
        ]
        if found:
            tables += _shaped(f"{title} (`{name}`)", found)
    return tables


def _shaped(title: str, found: list[tuple[str, Any]]) -> list[Table]:
    values = [v for _, v in found]
    if all(isinstance(v, dict) for v in values):  # e.g. {key: serves}: a row per key
        keys = list(dict.fromkeys(k for v in values for k in v))
        rows = [[str(k), *(cell(v.get(k)) for v in values)] for k in keys]
        return [_capped(Table(title, ["", *(label for label, _ in found)], rows))]
    if all(isinstance(v, list) and all(isinstance(x, dict) for x in v) for v in values):
        tables = []
        for label, v in found:  # e.g. [{step, ms, ...}]: a table per treatment
            cols = list(dict.fromkeys(c for x in v for c in x))
            rows = [[cell(x.get(c)) for c in cols] for x in v]
            tables.append(_capped(Table(f"{title}: {label}", cols, rows)))
        return tables
    return [Table(title, ["treatment", "value"], [[label, cell(v)] for label, v in found])]


def _capped(table: Table) -> Table:
    """At most MAX_ROWS rows (a job summary holds 1 MiB; 10,000 keys would not fit)."""
    if len(table.rows) <= MAX_ROWS:
        return table
    note = f"first {MAX_ROWS} of {len(table.rows)} rows"
    return Table(table.title, table.header, table.rows[:MAX_ROWS], note)


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.5g}"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def checks_table(source: str, checks: list[CheckResult]) -> Table:
    counts = {s: sum(c.status == s for c in checks) for s in ("passed", "failed", "skipped")}
    note = ", ".join(f"{n} {s}" for s, n in counts.items())
    rows = [[c.status.upper(), c.scenario, c.rule, c.detail] for c in checks]
    return Table(f"Checks: {source}", ["status", "scenario", "rule", "detail"], rows, note)
