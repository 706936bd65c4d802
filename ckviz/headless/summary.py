"""Per-run results -> per-scenario summaries over seeds."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from ckviz.model.results import (
    DisciplineSummary,
    RunResult,
    ScenarioResult,
    Spread,
    SweepInfo,
    TreatmentSummary,
    worst_key_mean_wait,
)
from ckviz.model.scenario import Scenario
from ckviz.model.steps import StepScenario


def scenario_result(
    scenario: Scenario | StepScenario,
    labels: Sequence[str],
    seeds: Sequence[str],
    runs: Sequence[RunResult],
    sweep: SweepInfo | None = None,
) -> ScenarioResult:
    """The scenario's entry: its runs in matrix order and a summary per treatment (and, for
    a [sweep] variant, what it is)."""
    entry = ScenarioResult(
        name=scenario.name,
        weights=scenario.weights(),
        runs=[],
        summary=[],
        sweep=sweep,
        description=scenario.description or None,
        digest=scenario_digest(scenario),
    )
    if scenario.victims is not None:  # a step scenario's (a millisecond one has none)
        entry.victims = list(scenario.victims)
        entry.between_calls = scenario.between_calls
    return summarized(entry, scenario.light_key, labels, seeds, runs)


def scenario_digest(scenario: Scenario | StepScenario) -> str:
    """sha256 of what the scenario runs: its fields but its words, rules and tenants (how it
    is judged, not what it runs), and a trace's bytes (the same file path may hold another
    recording)."""
    text = scenario.model_dump_json(exclude={"name", "description", "expect", "tenants"})
    digest = hashlib.sha256(text.encode("utf-8"))
    trace = scenario.replay
    if trace is not None:
        digest.update(Path(trace.path).read_bytes())
    return digest.hexdigest()[:16]


def summarized(
    entry: ScenarioResult,
    light_key: str | None,
    labels: Sequence[str],
    seeds: Sequence[str],
    runs: Sequence[RunResult],
) -> ScenarioResult:
    """`entry` (name, weights, victims) with `runs` and their summaries per treatment; also
    how `ckviz merge` rebuilds a scenario from its shards' runs."""
    by_label = {label: [r for r in runs if r.treatment == label] for label in labels}
    present = {label: rs for label, rs in by_label.items() if rs}
    return entry.model_copy(
        update={
            "runs": list(runs),
            "summary": [_discipline_summary(label, rs, seeds) for label, rs in present.items()],
            "treatments": [
                _treatment_summary(label, rs, light_key) for label, rs in present.items()
            ],
        }
    )


def _discipline_summary(
    label: str, runs: Sequence[RunResult], seeds: Sequence[str]
) -> DisciplineSummary:
    first = next((r for s in seeds for r in runs if r.seed == s), runs[0])
    return DisciplineSummary(
        discipline=label,
        contention_worst_share_over_weight=Spread.of(
            [r.metrics.contention_worst_share_over_weight for r in runs]
        ),
        contention_jain=Spread.of([r.metrics.contention_jain for r in runs]),
        per_key_first_seed=list(first.metrics.per_key),
    )


def _treatment_summary(
    label: str, runs: Sequence[RunResult], light_key: str | None
) -> TreatmentSummary:
    light = [row.mean_wait for r in runs for row in r.metrics.per_key if row.key == light_key]
    return TreatmentSummary(
        label=label,
        light_key=light_key,
        light_key_mean_wait=Spread.of(light) if light else None,
        worst_key_mean_wait=Spread.of([worst_key_mean_wait(r) for r in runs]),
        makespan_ms=Spread.of([float(r.metrics.makespan_ms) for r in runs]),
        contention_worst_share_over_weight=Spread.of(
            [r.metrics.contention_worst_share_over_weight for r in runs]
        ),
    )
