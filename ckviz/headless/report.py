"""The tables `ckviz --headless` prints, one per scenario."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ckviz.headless.checks import summary_line
from ckviz.headless.ci_outputs import error_annotations
from ckviz.model.names import shown_name
from ckviz.model.results import (
    CheckResult,
    DisciplineSummary,
    Results,
    RunResult,
    ScenarioResult,
    Spread,
    TreatmentSummary,
)
from ckviz.report.sources import Source
from ckviz.report.tables import ATTAINMENT_SHOWN, attainment_cell, definitions
from ckviz.report.verdicts import verdicts
from ckviz.report.views import Row, ScenarioView, scenario_views

# Why disciplines can coincide: said under a table whose rows show they did.
COINCIDE_WHY = {
    "stride": "stride is sfq with every clock step scaled by 10^6 (pass = 10^6/weight), which "
    "keeps the keys' order, so at unit weights it serves the same runs as sfq",
    "codel-sfq": "codel-sfq is sfq until some key's head has waited over 200 ms for 100 ms; "
    "identical rows mean CoDel never changed a pick",
    "codel-baseline": "codel-baseline is baseline until some key's head has waited over 200 ms "
    "for 100 ms; identical rows mean CoDel never changed a pick",
}


def print_tables(results: Results, console: Console) -> None:
    """A table per scenario, each with its verdict, then what the columns shown mean, once."""
    starvation = [s for s in results.scenarios if s.between_calls]
    views = {v.name: v for v in _views(results)}
    said = {name: " ".join(verdicts(v)) for name, v in views.items()}
    shown: set[str] = set()
    for scenario in results.scenarios:
        if scenario.victims is None:
            view = views.get(scenario.name)
            rows = {r.label: r for r in view.views[0].rows} if view and view.views else {}
            table = scenario_table(scenario, results.matrix.seeds[0], said.get(scenario.name), rows)
            console.print(table)
            shown |= columns_shown(scenario)
        elif not scenario.between_calls:
            console.print(micro_table(scenario))
    if starvation:
        console.print(starvation_table(starvation))
    if shown:
        console.print(Text(definitions(*shown)))


def columns_shown(scenario: ScenarioResult) -> set[str]:
    """The figures a scenario's table shows, by their DEFINED names (the verdict names the
    starved keys, so "starved" is always among them)."""
    shown = {"attainment", "wait", "worst share", "jain", "starved"}
    if any(t.light_key for t in scenario.treatments or []):
        shown.add("makespan")
    if identical_rows(scenario):
        shown.add("same")
    return shown


_MICRO_ROWS = (
    ("victim first serve", "victim_first_serve"),
    ("victim wait p50", "victim_wait_p50"),
    ("victim wait p95", "victim_wait_p95"),
    ("victim wait p99", "victim_wait_p99"),
    ("Jain (non-zero counts)", "jain_nonzero"),
    ("drain step", "drain_step"),
)


def micro_table(scenario: ScenarioResult) -> Table:
    """The reference's micro-benchmark table: metric, first treatment, second, delta, others."""
    runs = [r for r in scenario.runs if r.metrics.steps is not None]
    table = Table(title=Text(scenario.name, style="bold"), title_justify="left")
    table.add_column("metric (steps)")
    for i, run in enumerate(runs):
        table.add_column(Text(run.treatment), justify="right")
        if i == 1:
            table.add_column("delta", justify="right")
    for label, field in _MICRO_ROWS:
        values = [getattr(r.metrics.steps, field) for r in runs]
        table.add_row(label, *_with_delta(values))
    table.add_row(
        "all keys: worst share/weight",
        *_with_delta([r.metrics.contention_worst_share_over_weight for r in runs]),
    )
    table.add_row("all keys: Jain", *_with_delta([r.metrics.contention_jain for r in runs]))
    if any(r.consumers for r in runs):
        shares = [per_consumer(r) for r in runs]
        table.add_row(
            "runs per consumer", *shares[:2], *(["-"] if len(runs) >= 2 else []), *shares[2:]
        )
    return table


def _with_delta(values: list[int | float | None]) -> list[str]:
    cells = [_figure(v) for v in values]
    if len(values) >= 2:
        a, b = values[0], values[1]
        delta = None if a is None or b is None else b - a
        shown = _figure(delta)
        cells.insert(2, shown if delta is None or delta < 0 else f"+{shown}")
    return cells


def _figure(value: int | float | None) -> str:
    """As the reference formats them: integers as-is, other numbers to 2 decimals."""
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.2f}"


def starvation_table(scenarios: list[ScenarioResult]) -> Table:
    """Per shape, the backlog key's serves out of all serves under each treatment."""
    labels = list(dict.fromkeys(r.treatment for s in scenarios for r in s.runs))
    table = Table(
        title="backlog key's serves / all serves (final vtime floor)",
        title_justify="left",
        title_style="bold",
    )
    table.add_column("shape")
    for label in labels:
        table.add_column(Text(label), justify="right")
    for scenario in scenarios:
        backlog = (scenario.victims or [""])[0]
        by_label = {r.treatment: r.metrics for r in scenario.runs}
        cells = []
        for label in labels:
            m = by_label.get(label)
            if m is None or m.key_serves is None:
                cells.append("-")
                continue
            text = f"{m.key_serves.get(backlog, 0)}/{sum(m.key_serves.values())}"
            if m.vtime_floor_final is not None:
                text += f" ({m.vtime_floor_final:g})"
            cells.append(text)
        table.add_row(Text(scenario.name), *cells)
    return table


def _views(results: Results) -> list[ScenarioView]:
    return scenario_views([Source("results", Path("results.json"), results)])


def verdict_lines(results: Results) -> dict[str, str]:
    """Each scenario's `Verdict:` line, as the report words it."""
    return {v.name: " ".join(verdicts(v)) for v in _views(results)}


def scenario_table(
    scenario: ScenarioResult,
    first_seed: str,
    verdict: str | None = None,
    rows: dict[str, Row] | None = None,
) -> Table:
    same_as = identical_rows(scenario)
    firsts = {r.treatment: r for r in scenario.runs if r.seed == first_seed}
    served = {label: per_consumer(r) for label, r in firsts.items()}
    several = any(r.consumers for r in scenario.runs)
    caption = "\n".join(
        line for line in (shown_name(verdict) if verdict else "", _footnote(same_as)) if line
    ) + (f"\n{CONSUMERS_NOTE}" if several else "")
    table = Table(
        title=Text(scenario.name, style="bold"),  # `[light.count=10]`, `[/]`: no markup
        title_justify="left",
        caption=Text(caption) if caption else None,  # names are the user's: no markup
        caption_justify="left",
    )
    table.add_column("discipline", no_wrap=True)
    caps = _caps_by_label(scenario.runs)
    if any(c != "-" for c in caps.values()):
        table.add_column("caps per-key/total", no_wrap=True)
    if several:
        table.add_column("runs per consumer", no_wrap=True)
    table.add_column(f"fair-share attainment {ATTAINMENT_SHOWN}", justify="right")
    table.add_column(Text(f"most under-served key ({first_seed}), mean wait ms"), justify="right")
    table.add_column("worst share/weight mean (min..max)", justify="right", no_wrap=True)
    table.add_column("Jain mean", justify="right")
    treatments = {t.label: t for t in scenario.treatments or []}
    show_caps = any(t.light_key for t in treatments.values())
    if show_caps:
        table.add_column("light key wait ms", justify="right")
        table.add_column("makespan ms", justify="right")
    lifecycle = any(k.lifecycle for r in scenario.runs for k in r.metrics.per_key)
    if lifecycle:
        table.add_column(Text(f"{LIFECYCLE_HEADER} ({first_seed})"), justify="right")
    for row in scenario.summary:
        twin = same_as.get(row.discipline)
        cells = [row.discipline + (f" (= {twin})" if twin else "")]
        if any(c != "-" for c in caps.values()):
            cells.append(caps.get(row.discipline, "-"))
        if several:
            cells.append(served.get(row.discipline, "-"))
        runs = [r for r in scenario.runs if r.treatment == row.discipline]
        row_view = (rows or {}).get(row.discipline)
        cells += [
            attainment_cell(row_view) if row_view else _attainment(runs),
            _underserved(firsts.get(row.discipline)),
            _spread(row.contention_worst_share_over_weight),
            f"{row.contention_jain.mean:.5f}",
        ]
        if show_caps:
            t = treatments[row.discipline]
            light = t.light_key_mean_wait
            cells += [f"{light.mean:.1f}" if light else "-", f"{t.makespan_ms.mean:.0f}"]
        if lifecycle:
            cells.append(lifecycle_totals(firsts.get(row.discipline)))
        # key names and labels are the user's: no markup, invisible and bidi characters escaped
        table.add_row(*(Text(shown_name(c)) for c in cells))
    return table


def identical_rows(scenario: ScenarioResult) -> dict[str, str]:
    """Each label whose figures equal an earlier row's, mapped to that row's label."""
    treatments = {t.label: t for t in scenario.treatments or []}
    first: dict[tuple[object, ...], str] = {}
    same: dict[str, str] = {}
    for row in scenario.summary:
        key = _signature(row, treatments.get(row.discipline))
        if key in first:
            same[row.discipline] = first[key]
        else:
            first[key] = row.discipline
    return same


def _signature(row: DisciplineSummary, t: TreatmentSummary | None) -> tuple[object, ...]:
    summary = row.model_dump(exclude={"discipline"})
    return (repr(summary), repr(t.model_dump(exclude={"label"})) if t else None)


def _footnote(same_as: dict[str, str]) -> str:
    lines = []
    if same_as:
        pairs = ", ".join(f"{a} = {b}" for a, b in same_as.items())
        why = [COINCIDE_WHY[a] for a in same_as if a in COINCIDE_WHY]
        lines.append(f"Identical rows ({pairs}): every figure is the same. " + "; ".join(why))
    return "\n".join(lines)


CONSUMERS_NOTE = (
    "Runs per consumer: the runs each consumer's dequeue calls took, c1/c2/..., on the first "
    "seed. The consumers take turns in an order drawn from the seed and the instant, at one "
    "queue: a discipline whose order lives in Redis (baseline, vtime) serves the same runs as "
    "with one consumer; a client-side one (sfq, drr, ...) ranks from each consumer's own copy "
    "of its state (README: Several consumers)."
)


def per_consumer(run: RunResult) -> str:
    """`c1/c2/...` runs taken, or "-" for a run with one consumer."""
    served = run.metrics.per_consumer
    return "/".join(str(c.dequeued) for c in served) if served else "-"


LIFECYCLE_HEADER = "retried/expired/dead-lettered/fast-path"


def lifecycle_totals(run: RunResult | None) -> str:
    """The run's lifecycle counts over its keys: nacks, expiries, dead letters, fast serves."""
    lives = [k.lifecycle for k in run.metrics.per_key if k.lifecycle] if run else []
    if not lives:
        return "-"
    fields = ("retries", "expired", "dead_lettered", "fast_path")
    return "/".join(str(sum(getattr(life, f) for life in lives)) for f in fields)


def _caps_by_label(runs: list[RunResult]) -> dict[str, str]:
    shown: dict[str, str] = {}
    for r in runs:
        if r.per_key_cap or r.total_cap:
            shown.setdefault(r.treatment, f"{r.per_key_cap or '-'}/{r.total_cap or '-'}")
        else:
            shown.setdefault(r.treatment, "-")
    return shown


def _attainment(runs: list[RunResult]) -> str:
    """The most under-served key's attainment over seeds ("-": a file from before it)."""
    values = [a for r in runs if (a := r.metrics.most_underserved_attainment) is not None]
    if not values:
        return "-"
    s = Spread.of(values)
    return f"{s.mean:.3f} ({s.min:.3f}..{s.max:.3f})"


def _underserved(run: RunResult | None) -> str:
    key = run.metrics.most_underserved_key if run else None
    if run is None or key is None:
        return "-"
    wait = next((k.mean_wait for k in run.metrics.per_key if k.key == key), None)
    return f"{key} {wait:.1f}" if wait is not None else key


def _spread(s: Spread) -> str:
    """Mean (min..max); one value alone (one seed has no spread to show)."""
    if s.min == s.max:
        return f"{s.mean:.5f}"
    return f"{s.mean:.5f} ({s.min:.5f}..{s.max:.5f})"


_STATUS_STYLE = {"passed": "green", "failed": "bold red", "skipped": "dim"}


def print_checks(checks: list[CheckResult], console: Console) -> None:
    """One line per [[expect]] rule; failures name the scenario and the rule."""
    for c in checks:
        style = _STATUS_STYLE[c.status]
        console.print(
            Text.assemble(
                (f"{c.status.upper():7}", style), f" {c.scenario}: {c.rule} ({c.detail})"
            ),
            highlight=False,
        )
    console.print(summary_line(checks), highlight=False, markup=False)
    for line in error_annotations(checks):  # GitHub Actions only: on the run's page and the PR
        console.print(line, highlight=False, markup=False, soft_wrap=True)
