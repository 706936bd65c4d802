"""The results: pydantic models, rows per key in memory. The file (`schema_version: 2`) stores
per-key figures column-wise (ckviz/model/results_file.py); these models read either layout."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ckviz.model.key_columns import to_rows

SCHEMA_VERSION: Literal[2] = 2  # 1: per-key figures as rows; 2: as columns (docs/results.md)
READABLE_VERSIONS = (1, 2)


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _absent(value: object) -> bool:
    return value is None


def _rows(value: Any) -> Any:
    """Per-key figures as rows: a version 2 file's columns turned back, a version 1 file's
    rows as they are."""
    return to_rows(value) if isinstance(value, dict) else value


class KeyLifecycleResult(_Result):
    """One key's run lifecycle (docs/lifecycle.md): present only in runs of a scenario that
    uses it (a key that fails, waits, expires or takes the fast path, or [retry] / [ttl])."""

    attempts: int  # serves, retries included (the row's `dequeued` counts them too)
    retries: int  # nacks that queued a run again
    expired: int  # runs that expired queued, never served
    dead_lettered: int  # runs failed past their last attempt
    delayed: int  # runs enqueued with a future score
    fast_path: int  # serves on the fast path (straight to a worker at enqueue)
    succeeded: int  # runs served for the last time (acked)
    # from a run's first due time (its enqueue, or its delay's end) to its successful serve:
    # a retry's backoff counts; None when no run succeeded
    success_wait_mean: float | None
    success_wait_p50: int | None
    success_wait_p99: int | None
    success_wait_max: int | None


class KeyRowResult(_Result):
    key: str
    dequeued: int
    weight: float
    share: float
    contention_share_over_weight: float | None
    mean_wait: float
    wait_p50: int
    wait_p99: int
    wait_max: int
    # demand-aware (docs/fairness.md); absent in files written before they existed
    fair_share_attainment: float | None = None  # got / owed; None: owed under 3 (not judged)
    slowdown: float | None = None  # mean wait / mean hold; None: holds unknown (step runs)
    # a scenario with the run lifecycle only (left out of the file otherwise, not written as
    # null); its serves are attempts: `dequeued` and the waits count each one
    lifecycle: KeyLifecycleResult | None = Field(default=None, exclude_if=_absent)


KeyRows = Annotated[list[KeyRowResult], BeforeValidator(_rows)]


class ConsumerResult(_Result):
    """One consumer's service in a run with several (issue 10)."""

    consumer: str  # c1..cN
    dequeued: int  # runs its calls took
    calls: int  # dequeue calls it made
    empty_calls: int  # calls that took nothing
    # a mixed rollout only (model/lineup.py; absent otherwise): the discipline whose scripts
    # its calls ran, and its other calls: the runs it enqueued, acked, nacked, dead-lettered
    discipline: str | None = Field(default=None, exclude_if=_absent)
    enqueued: int | None = Field(default=None, exclude_if=_absent)
    acked: int | None = Field(default=None, exclude_if=_absent)
    nacked: int | None = Field(default=None, exclude_if=_absent)
    dead_lettered: int | None = Field(default=None, exclude_if=_absent)


class StepMetricsResult(_Result):
    """Step-harness figures (SPEC-vtime 6): steps, victims' waits in steps since arrival."""

    victim_first_serve: int
    victim_wait_p50: int
    victim_wait_p95: int
    victim_wait_p99: int
    jain_nonzero: float | None  # the reference's Jain over non-zero contention counts
    drain_step: int
    calls: int  # dequeue calls made (steps with the env full make none)


class KeySeriesResult(_Result):
    """One key, or `keys` keys pooled, in a run's timeline."""

    key: str
    keys: int
    served: list[int]  # runs dequeued by each instant of t_ms, cumulative
    wait_quantiles: list[int]  # nearest-rank wait (ms) at each of wait_percentiles


class TimelineResult(_Result):
    """Who was served by when: cumulative counts at 65 instants over [0, makespan] and wait
    quantiles, for at most 12 series (further keys pooled into one); see ckviz/timeline.py."""

    t_ms: list[int]
    wait_percentiles: list[int]
    series: list[KeySeriesResult]

    @model_validator(mode="after")
    def _arrays_agree(self) -> TimelineResult:
        """Every series has a count per instant and a wait per percentile (a file edited by
        hand otherwise draws nothing sensible)."""
        for s in self.series:
            if len(s.served) != len(self.t_ms):
                raise ValueError(
                    f"series '{s.key}' has {len(s.served)} served counts for "
                    f"{len(self.t_ms)} instants"
                )
            if len(s.wait_quantiles) != len(self.wait_percentiles):
                raise ValueError(
                    f"series '{s.key}' has {len(s.wait_quantiles)} wait quantiles for "
                    f"{len(self.wait_percentiles)} percentiles"
                )
        return self


class TenantRowResult(_Result):
    """One tenant's service over a run (docs/fairness.md, "Tenants"): owed its equal share
    among the tenants waiting, whatever the number of its keys."""

    tenant: str
    keys: list[str]
    owed: float
    dequeued: int
    fair_share_attainment: float | None = None  # got / owed; None: owed under 3 (not judged)
    starved: bool = False  # as a key is starved (fairness.STARVED_MEANS), at the tenant grain


class MetricsResult(_Result):
    total_dequeued: int
    redis_round_trips: int
    wall_clock_ms: float
    contention_worst_share_over_weight: float
    contention_jain: float
    makespan_ms: int
    worst_wait_p99: int
    worst_wait_max: int
    per_key: KeyRows
    # demand-aware (docs/fairness.md): the judged key with the lowest fair-share attainment
    # (ties by name), the share of judged keys below 0.5 and 0.9, and the keys starved (owed
    # 3 or more dequeues while others were served, and got none of them); absent in older files
    most_underserved_key: str | None = None
    most_underserved_attainment: float | None = None
    share_of_keys_below_0_5: float | None = None
    share_of_keys_below_0_9: float | None = None
    starved_keys: list[str] | None = None
    # the most under-served attainment in each of 200 block-bootstrap resamples of the run's
    # own time (docs/fairness.md, "What a claim means"; null: a resample judged no key); the
    # interval of a run that is one sample. Absent in older files.
    attainment_resamples: list[float | None] | None = None
    # a scenario whose keys belong to tenants ([tenants], or a trace's tenant column), some
    # tenant holding two keys or more: each tenant's service and the most under-served tenant
    # (ties by name); absent otherwise and in older files
    per_tenant: list[TenantRowResult] | None = Field(default=None, exclude_if=_absent)
    most_underserved_tenant: str | None = Field(default=None, exclude_if=_absent)
    most_underserved_tenant_attainment: float | None = Field(default=None, exclude_if=_absent)
    # its block-bootstrap resamples, as attainment_resamples' (a tenant's interval over one
    # sample); absent where there is no tenant grain and in older files
    tenant_attainment_resamples: list[float | None] | None = Field(default=None, exclude_if=_absent)
    # step-harness runs only: times above are in steps, contention is counted per call
    steps: StepMetricsResult | None = None
    key_serves: dict[str, int] | None = None  # serves per key; minted keys summed as "fresh-*"
    vtime_floor_final: float | None = None  # vtime runs: ckVtimeFloor after the last call
    timeline: TimelineResult | None = None  # absent in files written before it existed
    # runs with several consumers only (left out of the file otherwise, not written as null)
    per_consumer: list[ConsumerResult] | None = Field(default=None, exclude_if=_absent)


class RunResult(_Result):
    discipline: str
    treatment: str  # the discipline plus caps, as labelled in the matrix
    seed: str
    # the caps the run ran under: the treatment's (or the flags'), else the scenario's
    per_key_cap: int | None = None
    total_cap: int | None = None
    # consumers taking turns at the dequeue, when more than one (absent: one)
    consumers: int | None = Field(default=None, exclude_if=_absent)
    # which consumer runs what in a mixed rollout (model/lineup.py; absent otherwise)
    lineup: str | None = Field(default=None, exclude_if=_absent)
    # a run stopped part way by a stop request (Ctrl-C): where its clock stood (ms, or the
    # step); its figures are those of the run so far (absent: it ran to its end)
    stopped_at: int | None = Field(default=None, exclude_if=_absent)
    metrics: MetricsResult


class Spread(_Result):
    """A figure over the seeds of one cell."""

    mean: float
    min: float
    max: float

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        total = 0.0
        for v in values:  # left to right, as the reference sums
            total += v
        return cls(mean=total / len(values), min=min(values), max=max(values))


class DisciplineSummary(_Result):
    discipline: str  # the treatment label (the discipline name when no caps apply)
    contention_worst_share_over_weight: Spread
    contention_jain: Spread
    per_key_first_seed: KeyRows


class TreatmentSummary(_Result):
    label: str
    light_key: str | None
    light_key_mean_wait: Spread | None
    worst_key_mean_wait: Spread
    makespan_ms: Spread
    contention_worst_share_over_weight: Spread


class SweepInfo(_Result):
    """What a swept scenario is (issue 10): `scenario` run with `parameter` set to `value`;
    its name is `<scenario>[<parameter>=<value>]`, but readers need not parse it."""

    scenario: str  # the swept scenario's own name
    parameter: str  # a scenario field (`env_limit`) or a key's (`light.count`)
    value: int | float


class ScenarioResult(_Result):
    name: str
    weights: dict[str, float]
    runs: list[RunResult]
    summary: list[DisciplineSummary]
    treatments: list[TreatmentSummary] | None = None
    victims: list[str] | None = None  # step-harness scenarios
    between_calls: bool | None = None  # step-harness scenarios with arrivals between calls
    # a matrix's [sweep] variants only (left out of the file otherwise, not written as null)
    sweep: SweepInfo | None = Field(default=None, exclude_if=_absent)
    # what the scenario is (its description) and a digest of what it runs (keys or trace,
    # env, caps, knobs; not its rules or words): `ckviz report base head` compares them
    description: str | None = Field(default=None, exclude_if=_absent)
    digest: str | None = Field(default=None, exclude_if=_absent)


class RedisInfo(_Result):
    version: str
    mode: Literal["embedded", "url", "docker"]
    # keys the server evicted during the run: counted only under --allow-eviction-risk
    evicted_keys: int | None = Field(default=None, exclude_if=_absent)


class MatrixInfo(_Result):
    scenarios: list[str]
    seeds: list[str]
    disciplines: list[str]
    max_count: int
    per_key_cap: int | None = None  # --per-key-cap, applied to every discipline
    total_cap: int | None = None  # --total-cap, likewise
    # --consumers, if given: a count, or a mix (model/lineup.py)
    consumers: int | str | None = Field(default=None, exclude_if=_absent)
    # --clock-limit-ms or the matrix's clock_limit_ms, if given (else each scenario's own)
    clock_limit_ms: int | None = Field(default=None, exclude_if=_absent)


class ShardInfo(_Result):
    """Which slice of the matrix a file holds (--shard K/N); `ckviz merge` joins them."""

    index: int  # K, 1-based
    count: int  # N
    # what `ckviz merge` checks (ckviz/headless/shards.py); absent in files written before
    cells: int | None = None  # cells in this slice
    matrix_cells: int | None = None  # cells in the whole matrix
    matrix_digest: str | None = None  # the matrix as run: definitions, flags, Redis version
    figures_digest: str | None = None  # this file's runs and summaries as written


class CheckResult(_Result):
    """One [[expect]] rule's outcome under --check."""

    scenario: str
    rule: str
    status: Literal["passed", "failed", "skipped"]
    detail: str
    # the wall time of the runs the rule compares (JUnit's `time`); timing, machine-dependent
    wall_clock_s: float | None = Field(default=None, exclude_if=_absent)


class Results(_Result):
    schema_version: Literal[1, 2] = SCHEMA_VERSION  # as read; a file is written as 2
    ckviz_version: str
    complete: bool = True
    error: str | None = None
    redis: RedisInfo
    matrix: MatrixInfo
    wall_clock_s: float
    scenarios: list[ScenarioResult]
    checks: list[CheckResult] | None = None  # present when run with --check
    shard: ShardInfo | None = None  # present in one slice of a sharded matrix


def worst_key_mean_wait(run: RunResult) -> float:
    """The largest per-key mean wait of a run (the summaries' and the report's figure)."""
    return max((row.mean_wait for row in run.metrics.per_key if row.dequeued), default=0.0)
