"""The numbers every figure, table and finding of a report is drawn from, per scenario.

Computed from each run, not from the summaries, so a hand-edited run moves the figures and
the findings together (and files from before a summary field existed still report)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ckviz.fairness_intervals import MIN_EFFECT, Interval, figure_interval
from ckviz.fairness_judged import most_over_served as over_served
from ckviz.model.results import RunResult, ScenarioResult, Spread, worst_key_mean_wait
from ckviz.report.sources import Source


@dataclass(frozen=True)
class Row:
    """One treatment of one scenario in one results file, over its seeds."""

    label: str
    discipline: str
    seeds: int
    worst_share: Spread  # contention worst share/weight
    jain: Spread
    light_wait: Spread | None  # the light key's mean wait, when the scenario names one
    worst_wait: Spread  # each run's largest per-key mean wait
    makespan: Spread
    worst_key: str  # the worst-served key on the first seed
    first: RunResult  # the first seed's run: per-key rows, timeline
    cost_per_run: Spread | None = None  # wall ms per dequeued run: timing, machine-dependent
    # demand-aware (docs/fairness.md); None / empty in files written before they existed
    attainment: Spread | None = None  # the most under-served key's fair-share attainment
    below_0_9: Spread | None = None  # the share of judged keys below 0.9 of their fair share
    underserved_key: str | None = None  # the most under-served key on the first seed
    underserved_wait: float | None = None  # its mean wait on the first seed
    attainment_by_seed: dict[str, float] = field(default_factory=dict)
    # each seed's block-bootstrap resamples of its own run (None: a file from before them)
    resamples_by_seed: dict[str, list[float | None] | None] = field(default_factory=dict)
    light_wait_by_seed: dict[str, float] = field(default_factory=dict)
    worst_share_by_seed: dict[str, float] = field(default_factory=dict)
    jain_by_seed: dict[str, float] = field(default_factory=dict)
    starved: list[tuple[str, str]] = field(default_factory=list)  # (seed, key), seed order
    # the tenant grain (docs/fairness.md, Tenants): the most under-served tenant's attainment
    # per seed and each seed's resamples of it; empty where keys belong to no tenants
    tenant_attainment_by_seed: dict[str, float] = field(default_factory=dict)
    tenant_resamples_by_seed: dict[str, list[float | None] | None] = field(default_factory=dict)
    same_as: str | None = None  # an earlier row whose every figure this one repeats
    seeds_run: list[str] = field(default_factory=list)
    runs: list[RunResult] = field(default_factory=list)  # every seed's, in the file's order

    @property
    def gained(self) -> tuple[str, float] | None:
        """The first seed's most over-served key and its attainment (ties: the first name)."""
        return most_over_served(self.first)

    @property
    def attainment_interval(self) -> Interval | None:
        """The most under-served attainment with its 95% interval (fairness_intervals)."""
        return figure_interval(self.attainment_by_seed, self.resamples_by_seed)

    @property
    def tenant_attainment(self) -> Spread | None:
        """The most under-served tenant's attainment over the seeds (None: no tenant grain)."""
        by_seed = list(self.tenant_attainment_by_seed.values())
        return Spread.of(by_seed) if by_seed else None

    @property
    def tenant_interval(self) -> Interval | None:
        """The most under-served tenant's attainment with its 95% interval."""
        return figure_interval(self.tenant_attainment_by_seed, self.tenant_resamples_by_seed)


@dataclass(frozen=True)
class SourceView:
    source: str
    first_seed: str
    rows: list[Row]

    def row(self, label: str) -> Row | None:
        return next((r for r in self.rows if r.label == label), None)

    @property
    def seeds_run(self) -> list[str]:
        """The seeds its runs were made with, in the file's order (not the matrix's list)."""
        return list(dict.fromkeys(seed for r in self.rows for seed in r.seeds_run))


@dataclass(frozen=True)
class ScenarioView:
    name: str
    light_key: str | None
    views: list[SourceView]  # one per results file holding the scenario, in argument order
    missing_from: list[str]  # labels of the files that do not hold it
    description: str | None = None  # the scenario's own words (files from before: None)
    min_effect: float = MIN_EFFECT  # the least difference in attainment worth a claim

    @property
    def labels(self) -> list[str]:
        """Treatment labels in first-seen order across files."""
        seen: dict[str, None] = {}
        for v in self.views:
            seen.update(dict.fromkeys(r.label for r in v.rows))
        return list(seen)

    @property
    def unit(self) -> str:
        """Step-harness runs count time in steps, the others in logical ms."""
        steps = any(r.first.metrics.steps is not None for v in self.views for r in v.rows)
        return "steps" if steps else "ms"

    @property
    def has_timelines(self) -> bool:
        return any(r.first.metrics.timeline is not None for v in self.views for r in v.rows)

    @property
    def has_caps(self) -> bool:
        """Treatments beyond plain disciplines (the caps matrix)."""
        return any(r.label != r.discipline for v in self.views for r in v.rows)

    def labelled_rows(self) -> list[tuple[str, Row]]:
        """Every treatment's row of every file, labelled `treatment · file` when several
        files hold the scenario, else by the treatment alone."""
        several = len(self.views) > 1
        return [
            (f"{row.label} · {view.source}" if several else row.label, row)
            for view in self.views
            for row in view.rows
        ]


def most_over_served(run: RunResult) -> tuple[str, float] | None:
    """The judged key with the highest attainment on a run (fairness_judged.most_over_served)."""
    return over_served({k.key: k.fair_share_attainment for k in run.metrics.per_key})


def scenario_views(sources: Sequence[Source], min_effect: float = MIN_EFFECT) -> list[ScenarioView]:
    names: dict[str, None] = {}
    for s in sources:
        names.update(dict.fromkeys(sc.name for sc in s.results.scenarios))
    views = []
    for name in names:
        held = [(s, _scenario(s, name)) for s in sources]
        present = [(s, sc) for s, sc in held if sc is not None and sc.runs]
        light = next((_light_key(sc) for _, sc in present if _light_key(sc)), None)
        views.append(
            ScenarioView(
                name=name,
                light_key=light,
                views=[_source_view(s, sc, light) for s, sc in present],
                missing_from=[s.label for s, sc in held if sc is None or not sc.runs],
                description=next((sc.description for _, sc in present if sc.description), None),
                min_effect=min_effect,
            )
        )
    return views


def _scenario(source: Source, name: str) -> ScenarioResult | None:
    return next((sc for sc in source.results.scenarios if sc.name == name), None)


def _light_key(scenario: ScenarioResult) -> str | None:
    return next((t.light_key for t in scenario.treatments or [] if t.light_key), None)


def _source_view(source: Source, scenario: ScenarioResult, light: str | None) -> SourceView:
    seeds = source.results.matrix.seeds
    labels = list(dict.fromkeys(r.treatment for r in scenario.runs))
    rows = [
        _row(label, [r for r in scenario.runs if r.treatment == label], seeds, light)
        for label in labels
    ]
    return SourceView(source.label, seeds[0] if seeds else "", _marked(rows))


def _marked(rows: list[Row]) -> list[Row]:
    """Each row whose figures repeat an earlier row's says which (stride = sfq at unit weights)."""
    first: dict[tuple[object, ...], str] = {}
    marked = []
    for r in rows:
        key = signature(r)
        marked.append(replace(r, same_as=first[key]) if key in first else r)
        first.setdefault(key, r.label)
    return marked


def signature(r: Row) -> tuple[object, ...]:
    spreads = (
        *(r.worst_share, r.jain, r.light_wait, r.worst_wait, r.makespan),
        *(r.attainment, r.tenant_attainment),
    )
    return tuple((s.mean, s.min, s.max) if s else None for s in spreads)


def _row(label: str, runs: list[RunResult], seeds: Sequence[str], light: str | None) -> Row:
    first = next((r for s in seeds for r in runs if r.seed == s), runs[0])
    light_waits = [k.mean_wait for r in runs for k in r.metrics.per_key if k.key == light]
    worst = max(
        (k for k in first.metrics.per_key if k.dequeued), key=lambda k: k.mean_wait, default=None
    )
    row = Row(
        label=label,
        discipline=first.discipline,
        seeds=len(runs),
        worst_share=Spread.of([r.metrics.contention_worst_share_over_weight for r in runs]),
        jain=Spread.of([r.metrics.contention_jain for r in runs]),
        light_wait=Spread.of(light_waits) if light_waits else None,
        worst_wait=Spread.of([worst_key_mean_wait(r) for r in runs]),
        makespan=Spread.of([float(r.metrics.makespan_ms) for r in runs]),
        worst_key=worst.key if worst else "-",
        first=first,
        cost_per_run=_cost_per_run(runs),
        seeds_run=list(dict.fromkeys(r.seed for r in runs)),
        runs=runs,
        worst_share_by_seed={r.seed: r.metrics.contention_worst_share_over_weight for r in runs},
        jain_by_seed={r.seed: r.metrics.contention_jain for r in runs},
    )
    return _demand_aware(row, first, runs, light)


def _demand_aware(row: Row, first_run: RunResult, runs: list[RunResult], light: str | None) -> Row:
    """The demand-aware figures of a row's runs, where the runs carry them."""
    by_seed = {r.seed: a for r in runs if (a := r.metrics.most_underserved_attainment) is not None}
    below = [b for r in runs if (b := r.metrics.share_of_keys_below_0_9) is not None]
    first = first_run.metrics
    key = first.most_underserved_key
    wait = next((k.mean_wait for k in first.per_key if k.key == key), None)
    return replace(
        row,
        attainment=Spread.of(list(by_seed.values())) if by_seed else None,
        below_0_9=Spread.of(below) if below else None,
        underserved_key=key,
        underserved_wait=wait,
        attainment_by_seed=by_seed,
        resamples_by_seed={r.seed: r.metrics.attainment_resamples for r in runs},
        light_wait_by_seed={
            r.seed: k.mean_wait for r in runs for k in r.metrics.per_key if k.key == light
        },
        starved=[(r.seed, k) for r in runs for k in r.metrics.starved_keys or []],
        tenant_attainment_by_seed={
            r.seed: a
            for r in runs
            if (a := r.metrics.most_underserved_tenant_attainment) is not None
        },
        tenant_resamples_by_seed={r.seed: r.metrics.tenant_attainment_resamples for r in runs},
    )


def _cost_per_run(runs: list[RunResult]) -> Spread | None:
    costs = [
        r.metrics.wall_clock_ms / r.metrics.total_dequeued for r in runs if r.metrics.total_dequeued
    ]
    return Spread.of(costs) if costs else None
