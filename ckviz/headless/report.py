"""The tables `ckviz --headless` prints, one per scenario."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ckviz.model.results import CheckResult, Results, ScenarioResult, Spread


def print_tables(results: Results, console: Console) -> None:
    for scenario in results.scenarios:
        console.print(scenario_table(scenario, results.matrix.seeds[0]))


def scenario_table(scenario: ScenarioResult, first_seed: str) -> Table:
    table = Table(title=f"{scenario.name}", title_justify="left", title_style="bold")
    table.add_column("discipline")
    table.add_column("worst share/weight mean (min..max)", justify="right", no_wrap=True)
    table.add_column("Jain mean", justify="right")
    table.add_column(f"worst-served key, mean wait ms ({first_seed})", justify="right")
    treatments = {t.label: t for t in scenario.treatments or []}
    show_caps = any(t.light_key for t in treatments.values())
    if show_caps:
        table.add_column("light key wait ms", justify="right")
        table.add_column("makespan ms", justify="right")
    for row in scenario.summary:
        worst = max(
            (k for k in row.per_key_first_seed if k.dequeued),
            key=lambda k: k.mean_wait,
            default=None,
        )
        cells = [
            row.discipline,
            _spread(row.contention_worst_share_over_weight),
            f"{row.contention_jain.mean:.5f}",
            f"{worst.key} {worst.mean_wait:.1f}" if worst else "-",
        ]
        if show_caps:
            t = treatments[row.discipline]
            light = t.light_key_mean_wait
            cells += [f"{light.mean:.1f}" if light else "-", f"{t.makespan_ms.mean:.0f}"]
        table.add_row(*cells)
    return table


def _spread(s: Spread) -> str:
    return f"{s.mean:.5f} ({s.min:.5f}..{s.max:.5f})"


_STATUS_STYLE = {"passed": "green", "failed": "bold red", "skipped": "dim"}


def print_checks(checks: list[CheckResult], console: Console) -> None:
    """One line per [[expect]] rule; failures name the scenario and the rule."""
    for c in checks:
        style = _STATUS_STYLE[c.status]
        console.print(
            f"[{style}]{c.status.upper():7}[/] {c.scenario}: {c.rule} ({c.detail})", highlight=False
        )
    failed = sum(c.status == "failed" for c in checks)
    passed = sum(c.status == "passed" for c in checks)
    console.print(f"checks: {passed} passed, {failed} failed", highlight=False)
