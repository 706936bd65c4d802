"""`--check`: evaluate the scenarios' [[expect]] rules against a matrix's results."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ckviz.disciplines.registry import FACTORIES
from ckviz.errors import UsageError, echo
from ckviz.inputs import scenario_files
from ckviz.model.expectations import COMPARISONS, Expectation
from ckviz.model.results import CheckResult, Results, ScenarioResult, Spread, TreatmentSummary
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario

LOWER_IS_BETTER = {
    "light_key_mean_wait",
    "worst_key_mean_wait",
    "makespan_ms",
    "share_of_keys_below_0_9",
}
PER_RUN = ("most_underserved_attainment", "share_of_keys_below_0_9")  # each run's, not summed
NAMED_OTHERS = [word for word in COMPARISONS if word not in ("at_most", "at_least")]


def known_names(labels: Iterable[str] = ()) -> list[str]:
    """What a rule may name: a discipline, a treatment label of a bundled matrix, or `labels`
    (the treatments of the matrix being run). A rule naming one of these that this run did
    not include is skipped; any other name is a mistake."""
    names = dict.fromkeys(FACTORIES)
    for matrix in scenario_files.matrix_names():
        names.update(dict.fromkeys(t.name for t in scenario_files.load_matrix(matrix).treatments))
    names.update(dict.fromkeys(labels))
    return list(names)


def unknown_names(scenario: Scenario | StepScenario, known: Sequence[str]) -> list[str]:
    """One `expect[i].field: ...` line per rule field naming no discipline or treatment."""
    problems = []
    for i, rule in enumerate(scenario.expect):
        for field in ("discipline", *NAMED_OTHERS):
            name = getattr(rule, field)
            if isinstance(name, str) and name not in known:
                problems.append(
                    f"expect[{i}].{field}: no discipline or treatment '{name}' "
                    f"(known: {', '.join(known)})"
                )
    return problems


def summary_line(checks: Sequence[CheckResult]) -> str:
    if not checks:
        return "checks: no [[expect]] rules in the scenarios run"
    counts = [f"{sum(c.status == s for c in checks)} {s}" for s in ("passed", "failed", "skipped")]
    return "checks: " + ", ".join(counts)


def evaluate(
    scenarios: Sequence[Scenario | StepScenario], results: Sequence[ScenarioResult]
) -> list[CheckResult]:
    """One outcome per rule; a rule whose treatments were not run is reported as skipped."""
    by_name = {r.name: r for r in results}
    outcomes = []
    for scenario in scenarios:
        result = by_name.get(scenario.name)
        for rule in scenario.expect:
            outcomes.append(_check(scenario.name, rule, result))
    return outcomes


def metric_value(result: ScenarioResult, label: str, metric: str) -> float | None:
    """The mean over seeds of `metric` for treatment `label`, or None if it was not run."""
    if metric == "contention_jain":
        row = next((s for s in result.summary if s.discipline == label), None)
        return row.contention_jain.mean if row else None
    if metric in PER_RUN:
        runs = [r.metrics for r in result.runs if r.treatment == label]
        values = [v for m in runs if (v := getattr(m, metric)) is not None]
        return Spread.of(values).mean if values else None
    treatment = next((t for t in result.treatments or [] if t.label == label), None)
    return _treatment_metric(treatment, metric) if treatment else None


def _treatment_metric(t: TreatmentSummary, metric: str) -> float | None:
    spread = getattr(t, metric)
    return spread.mean if spread is not None else None


def _check(scenario: str, rule: Expectation, result: ScenarioResult | None) -> CheckResult:
    outcome = _judged(scenario, rule, result)
    if result is None:
        return outcome
    named = {rule.discipline, rule.better_than, rule.worse_than}
    named |= {rule.no_better_than, rule.no_worse_than}
    spent = sum(r.metrics.wall_clock_ms for r in result.runs if r.treatment in named)
    return outcome.model_copy(update={"wall_clock_s": round(spent / 1000, 3)})


def _judged(scenario: str, rule: Expectation, result: ScenarioResult | None) -> CheckResult:
    text = rule.describe()
    value = metric_value(result, rule.discipline, rule.metric) if result else None
    if value is None:
        return _skipped(scenario, text, rule.discipline)
    other_label = rule.better_than or rule.worse_than or rule.no_better_than or rule.no_worse_than
    if other_label is None:
        bound = rule.at_most if rule.at_most is not None else rule.at_least
        ok = value <= bound if rule.at_most is not None else value >= bound  # type: ignore[operator]
        return _outcome(scenario, text, ok, f"{value:.5g} vs bound {bound:g}")
    other = metric_value(result, other_label, rule.metric) if result else None
    if other is None:
        return _skipped(scenario, text, other_label)
    ok = _compare(rule, value, other)
    return _outcome(scenario, text, ok, f"{value:.5g} vs {other_label} {other:.5g}")


def _skipped(scenario: str, text: str, missing: str) -> CheckResult:
    detail = f"treatment '{missing}' not in this run"
    return CheckResult(scenario=scenario, rule=text, status="skipped", detail=detail)


def _compare(rule: Expectation, value: float, other: float) -> bool:
    # Express everything as "improvement over other", positive = better.
    gain = (other - value) if rule.metric in LOWER_IS_BETTER else (value - other)
    needed = rule.margin * abs(other)
    if rule.better_than is not None:
        return gain > needed if needed == 0 else gain >= needed
    if rule.worse_than is not None:
        return -gain > needed if needed == 0 else -gain >= needed
    if rule.no_worse_than is not None:
        return -gain <= needed
    return gain <= needed  # no_better_than


def _outcome(scenario: str, text: str, ok: bool, detail: str) -> CheckResult:
    return CheckResult(
        scenario=scenario, rule=text, status="passed" if ok else "failed", detail=detail
    )


def rules_for(
    results: Results, scenario_args: Sequence[str], where: str = "--check"
) -> list[CheckResult]:
    """A results file's [[expect]] rules evaluated after the fact (`ckviz check`, `report
    --check`, on a merged sharded file too): each scenario's rules come from the file given
    with --scenario of that name, else from the bundled scenario (a sweep variant: its
    scenario's rules). `where` starts an error line: the command and the results file."""
    given: dict[str, Scenario | StepScenario] = {}
    for arg in scenario_args:
        loaded = scenario_files.load_any(arg)
        given[loaded.name] = loaded  # a step scenario's rules: none
    bundled = set(scenario_files.bundled_names())
    scenarios = []
    for entry in results.scenarios:
        name = entry.sweep.scenario if entry.sweep else entry.name
        scenario = given.get(name)
        if scenario is None and name in bundled:
            scenario = scenario_files.load_any(name)
        elif scenario is None:
            raise UsageError(
                f"{where}: scenario '{echo(name)}' is not bundled with ckviz, so its [[expect]] "
                "rules are not known; give its file with --scenario PATH"
            )
        scenarios.append(scenario.model_copy(update={"name": entry.name}))
    return evaluate(scenarios, results.scenarios)
