"""The report's tables, as plain rows of text that the HTML and Markdown writers both render."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_jsonable_python

from ckviz.fairness import STARVED_MEANS
from ckviz.fairness_intervals import Interval
from ckviz.model.results import CheckResult, Spread
from ckviz.report.claims import difference_text
from ckviz.report.compare import pct_text
from ckviz.report.sweeps import SweepView, value_text
from ckviz.report.tenants import tenant_difference, tenant_rows
from ckviz.report.verdicts import reference
from ckviz.report.views import Row, ScenarioView

# Figures other parts of ckviz may add to a run's metrics: shown when present, skipped when not.
OPTIONAL_FIGURES = {
    "steps": "Step harness: micro timings",
    "key_serves": "Virtual time: serves per key",
    "vtime_floor_final": "Virtual time: final floor",
}

MAX_ROWS = 60
WORST_SHARE = "worst share/weight"
ATTAINMENT = "fair-share attainment"
# What each figure means, by the column it heads (the terminal says only what it shows)
DEFINED = {
    "attainment": f"{ATTAINMENT}: the dequeues a key got over those it was owed, each "
    "instant's dequeues owed max-min fairly by weight to the keys that had runs waiting, none "
    "above what it asked for (docs/fairness.md); 1 = its fair share. The table gives it for "
    "the most under-served key (lowest attainment; keys owed under 3 dequeues are not judged), "
    "mean over seeds ± the half-width of its 95% interval (a t-interval over the seeds; over "
    "one sample, a bootstrap over the run's own time windows) (min..max).",
    "below": "Keys below 0.9: the share of judged keys whose attainment is below 0.9.",
    "worst share": f"{WORST_SHARE}: of the dequeues made while two or more keys had runs "
    "waiting, each such key's share divided by its weight-proportional share, for the key that "
    "fared worst, whatever it asked for; 1 = fair, 0 = none of those dequeues.",
    "jain": "Jain: Jain's index (sum x)^2 / (n sum x^2) of those ratios, 1 = all equal.",
    "wait": "Mean wait: dequeue time minus arrival, averaged over a key's runs; the light key "
    "is the one the scenario names as its headline.",
    "makespan": "Makespan: when the last run was dequeued.",
    "same": "(= X): every figure equals row X's.",
    "starved": STARVED_MEANS[0].upper() + STARVED_MEANS[1:] + ".",
}
DEFINITIONS = " ".join(DEFINED.values())


def definitions(*shown: str) -> str:
    """The meanings of the columns `shown` (keys of DEFINED), in DEFINED's order."""
    return " ".join(text for name, text in DEFINED.items() if name in shown)


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
    unit = scenario.unit
    header = ["treatment", *(["results"] if several else [])]
    header += [f"{ATTAINMENT}, most under-served key, {ATTAINMENT_SHOWN}", "keys below 0.9"]
    header += [f"most under-served key (first seed), mean wait {unit}"]
    header += [f"{WORST_SHARE} mean (min..max)", "Jain mean (min..max)"]
    header += [f"{light} mean wait {unit}"] if light else []
    header += [f"makespan {unit}"]
    rows = []
    for label in scenario.labels:
        base = scenario.views[0].row(label) if scenario.views else None
        for view in scenario.views:
            r = view.row(label)
            if r is not None:
                was = base if base is not r else None
                rows.append(_figure_cells(r, view.source if several else None, light is not None))
                if was is not None:
                    rows[-1] = _with_changes(rows[-1], r, was, several, light is not None)
    note = "A later file's figures show their change against the first file's in %."
    return Table(scenario.name, header, rows, note if several else "")


def _with_changes(cells: list[str], r: Row, was: Row, several: bool, light: bool) -> list[str]:
    """Each figure of a later file's row with its change against the first file's in %."""
    figures: list[tuple[int, Spread | None, Spread | None]] = []
    at = 2 if several else 1
    figures.append((at, r.attainment, was.attainment))
    figures += [(at + 3, r.worst_share, was.worst_share), (at + 4, r.jain, was.jain)]
    if light:
        figures.append((at + 5, r.light_wait, was.light_wait))
    figures.append((len(cells) - 1, r.makespan, was.makespan))
    out = list(cells)
    for i, now, before in figures:
        if now is not None and before is not None:
            out[i] += f" ({pct_text(before.mean, now.mean)})"
    return out


def _figure_cells(r: Row, source: str | None, light: bool) -> list[str]:
    cells = [labelled(r), *([source] if source is not None else [])]
    below = "-" if r.below_0_9 is None else f"{r.below_0_9.mean:.0%}"
    cells += [attainment_cell(r), below, underserved(r)]
    cells += [spread(r.worst_share), spread(r.jain)]
    cells += [wait(r.light_wait)] if light else []
    return [*cells, spread(r.makespan, 0)]


ATTAINMENT_SHOWN = "mean ± 95% interval (min..max)"


def attainment_cell(r: Row) -> str:
    """`0.949 ± 0.005 (0.946..0.953)` over seeds; over one sample `0.949 ± 0.031 (one
    sample)`, the interval the run's own (docs/fairness.md, What a claim means)."""
    return interval_cell(r.attainment_interval, r.attainment)


def interval_cell(i: Interval | None, s: Spread | None) -> str:
    if i is None or s is None:
        return "-"
    half = i.half_width
    shown = f"{i.estimate:.3f}" + (f" ± {half:.3f}" if half is not None else "")
    if i.basis == "one sample":
        return shown + " (one sample)"
    return shown + (f" ({s.min:.3f}..{s.max:.3f})" if s.min != s.max else "")


def labelled(r: Row) -> str:
    """The row's label, with `(= sfq)` when its figures repeat sfq's."""
    return r.label + (f" (= {r.same_as})" if r.same_as else "")


def underserved(r: Row) -> str:
    """`key wait` of the first seed's most under-served key (older files: "-")."""
    if r.underserved_key is None:
        return "-"
    shown = "-" if r.underserved_wait is None else f"{r.underserved_wait:.1f}"
    return f"{r.underserved_key} {shown}"


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
    for name, title in OPTIONAL_FIGURES.items():
        found = [
            (label, value)
            for label, row in scenario.labelled_rows()
            if (value := to_jsonable_python(getattr(row.first.metrics, name, None))) is not None
        ]
        if found:
            tables += _shaped(f"{title} (`{name}`)", found)
    return (
        tables
        + tenant_grain_tables(scenario)
        + tenant_tables(scenario)
        + lifecycle_tables(scenario)
    )


TENANT_GRAIN_NOTE = (
    "The most under-served tenant's fair-share attainment (docs/fairness.md, Tenants), mean "
    "over seeds ± the half-width of its 95% interval (over one sample, the run's own resampled "
    "time windows) (min..max), and against the reference its paired difference with its 95% "
    "interval: a claim needs the interval clear of 0 and a difference of at least the minimum "
    "effect, as among keys."
)


def tenant_grain_tables(scenario: ScenarioView) -> list[Table]:
    """Each treatment's most under-served tenant with its interval, and its paired difference
    from the reference's with the claim the rule allows, where the runs carry the tenant grain."""
    several = len(scenario.views) > 1
    rows = []
    for view in scenario.views:
        ref = reference(view)
        for r in tenant_rows(view):
            d = tenant_difference(r, ref) if r is not ref else None
            claim = "reference" if r is ref else "-"
            if d is not None:
                claim = d.claim(scenario.min_effect) or "no difference shown"
            lowest = r.first.metrics.most_underserved_tenant or "-"
            cells = [labelled(r), *([view.source] if several else [])]
            cells += [tenant_attainment_cell(r), lowest]
            rows.append([*cells, difference_text(d) if d is not None else "-", claim])
    if not rows:
        return []
    header = ["treatment", *(["results"] if several else [])]
    header += [f"{ATTAINMENT}, most under-served tenant, {ATTAINMENT_SHOWN}"]
    header += ["most under-served tenant (first seed)", "against the reference", "claim"]
    return [Table("Tenant grain", header, rows, TENANT_GRAIN_NOTE)]


def tenant_attainment_cell(r: Row) -> str:
    """The most under-served tenant's attainment as attainment_cell gives a key's."""
    return interval_cell(r.tenant_interval, r.tenant_attainment)


TENANT_NOTE = (
    "Each tenant's service on the first seed, at the tenant grain (docs/fairness.md, Tenants): "
    "every instant's dequeues owed equally among the tenants with runs waiting, whatever the "
    "number of their keys; fair-share attainment = got / owed, 1 = its fair share."
)


def tenant_tables(scenario: ScenarioView) -> list[Table]:
    """Each treatment's tenants (first seed), where the runs carry the tenant grain."""
    rows = []
    for label, r in scenario.labelled_rows():
        if r.same_as is not None:
            continue
        for t in r.first.metrics.per_tenant or []:
            a = t.fair_share_attainment
            got = "-" if a is None else f"{a:.2f}"
            cells = [label, t.tenant, str(len(t.keys)), f"{t.owed:.1f}", str(t.dequeued)]
            rows.append([*cells, got])
    if not rows:
        return []
    header = ["treatment", "tenant", "keys", "owed", "got", "fair-share attainment"]
    return [_capped(Table("Tenants (first seed)", header, rows, TENANT_NOTE))]


LIFECYCLE_COLUMNS = (
    ("attempts", "attempts"),
    ("retries", "retries"),
    ("expired", "expired"),
    ("dead-lettered", "dead_lettered"),
    ("delayed", "delayed"),
    ("fast path", "fast_path"),
    ("succeeded", "succeeded"),
    ("wait to success mean", "success_wait_mean"),
    ("wait to success p99", "success_wait_p99"),
)
LIFECYCLE_NOTE = (
    "The run lifecycle per key (docs/lifecycle.md), first seed: serves (retries included), "
    "nacks, runs expired unserved, runs dead-lettered, runs enqueued with a future score, serves "
    "on the fast path, runs acked; the wait to success runs from a run's first due time to its "
    "successful serve, so a retry's backoff counts."
)


def lifecycle_tables(scenario: ScenarioView) -> list[Table]:
    """A table per treatment whose runs carry the lifecycle's per-key figures (none else)."""
    tables = []
    for label, row in scenario.labelled_rows():
        keyed = [(k.key, k.lifecycle) for k in row.first.metrics.per_key if k.lifecycle]
        if not keyed:
            continue
        header = ["key", *(name for name, _ in LIFECYCLE_COLUMNS)]
        rows = [
            [key, *(cell(getattr(life, f)) for _, f in LIFECYCLE_COLUMNS)] for key, life in keyed
        ]
        title = f"Run lifecycle: {label}"
        tables.append(_capped(Table(title, header, rows, LIFECYCLE_NOTE)))
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


STATUS_ORDER = {"failed": 0, "skipped": 1, "passed": 2}


def checks_status(checks: list[CheckResult]) -> str:
    """`passed` (all N rules) or `N failed` (of M): what a CI reader wants first."""
    failed = sum(c.status == "failed" for c in checks)
    if failed:
        return f"{failed} of {len(checks)} rules failed"
    skipped = sum(c.status == "skipped" for c in checks)
    return f"passed ({len(checks)} rules" + (f", {skipped} skipped)" if skipped else ")")


def checks_table(source: str, checks: list[CheckResult]) -> Table:
    """Failed rules first, then skipped, then passed (each group in the order run)."""
    counts = {s: sum(c.status == s for c in checks) for s in ("passed", "failed", "skipped")}
    note = ", ".join(f"{n} {s}" for s, n in counts.items())
    ordered = sorted(checks, key=lambda c: STATUS_ORDER[c.status])
    rows = [[c.status.upper(), c.scenario, c.rule, c.detail] for c in ordered]
    return Table(f"Checks: {source}", ["status", "scenario", "rule", "detail"], rows, note)
