"""One representation per figure: the fairness and wait computation makes the results' own
types (model/results.py), which the results file writes and the report reads; nothing copies
them field by field on the way. A figure added to the model but not computed, or computed
but not in the model, fails here."""

from __future__ import annotations

from ckviz.metrics import outcome_metrics, step_figures
from ckviz.model.results import (
    KeyLifecycleResult,
    KeyRowResult,
    MetricsResult,
    StepMetricsResult,
    TimelineResult,
)
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine import KeyLife, Outcome, StepOutcome, as_dequeues
from ckviz.timeline import service_timeline

# What the run's cell adds to the figures, from facts beyond the events (headless/cells.py):
# every other field of MetricsResult is the computation's, set whatever the run.
ADDED_BY_THE_CELL = {
    "timeline",  # millisecond runs: ckviz/timeline.py, itself a TimelineResult
    "per_tenant",  # keys that belong to tenants: fairness_tenants
    "most_underserved_tenant",
    "most_underserved_tenant_attainment",
    "tenant_attainment_resamples",  # the tenants' figure over the run's own time windows
    "steps",  # step runs: step_figures
    "key_serves",
    "vtime_floor_final",
    "per_consumer",  # several consumers
}
ONLY_WITH_THE_LIFECYCLE = {"lifecycle"}


def ev(key: str, arrival: int, dequeued: int, i: int = 0) -> DequeueEvent:
    return DequeueEvent(key, f"{key}~0#{i}", arrival, dequeued)


EVENTS = [ev("a", 0, 0, 0), ev("a", 0, 1, 1), ev("b", 0, 2, 0), ev("a", 0, 3, 2), ev("b", 0, 4, 1)]
WEIGHTS = {"a": 1.0, "b": 1.0}


def outcome(**more: object) -> Outcome:
    facts: dict[str, object] = dict(
        unit="ms",
        events=EVENTS,
        weights=WEIGHTS,
        total_runs=len(EVENTS),
        t=4,
        round_trips=7,
        commands_sent=30,
        service=(),
        dequeues=as_dequeues(EVENTS),
    )
    return Outcome(**{**facts, **more})  # type: ignore[arg-type]


def test_the_computation_sets_every_figure_the_cell_does_not() -> None:
    m = outcome_metrics(outcome(), wall_clock_ms=1.5)
    assert isinstance(m, MetricsResult)
    assert set(MetricsResult.model_fields) - m.model_fields_set == ADDED_BY_THE_CELL
    assert (m.redis_round_trips, m.wall_clock_ms) == (7, 1.5)
    for row in m.per_key:
        assert isinstance(row, KeyRowResult)
        assert set(KeyRowResult.model_fields) - row.model_fields_set == ONLY_WITH_THE_LIFECYCLE


def test_a_lifecycle_run_sets_each_keys_lifecycle_whole() -> None:
    lives = {"a": KeyLife(attempts=3, success_waits=[0, 1, 3]), "b": KeyLife(attempts=2)}
    m = outcome_metrics(outcome(lifecycle=lives))
    for row in m.per_key:
        assert isinstance(row.lifecycle, KeyLifecycleResult)
        assert row.model_fields_set >= set(KeyRowResult.model_fields)
        assert row.lifecycle.model_fields_set == set(KeyLifecycleResult.model_fields)
    assert m.per_key[0].lifecycle is not None and m.per_key[0].lifecycle.succeeded == 3


def test_a_step_run_sets_the_same_figures_and_its_own_whole() -> None:
    steps = StepOutcome({"a": 2, "b": 1}, {"a", "b"}, ("a", "b"), ("b",), 5, 4, {"a": 3}, None)
    m = outcome_metrics(outcome(unit="step", steps=steps))
    assert set(MetricsResult.model_fields) - m.model_fields_set == ADDED_BY_THE_CELL
    figures = step_figures(EVENTS, steps.victims, steps.contention, steps.drain_step, 5)
    assert isinstance(figures, StepMetricsResult)
    assert figures.model_fields_set == set(StepMetricsResult.model_fields)


def test_the_timeline_is_made_as_the_file_holds_it() -> None:
    timeline = service_timeline(EVENTS, WEIGHTS)
    assert isinstance(timeline, TimelineResult)
    assert timeline.model_fields_set == set(TimelineResult.model_fields)
