"""A scenario's verdict and the finding that must come first: is any treatment fairer (or less
fair) than the reference by the demand-aware measure (docs/fairness.md), and did any treatment
starve a key on any seed.

Every comparison is a paired difference with its 95% interval (ckviz/fairness_intervals.py):
over seeds a paired t-interval, over one sample the run's own block bootstrap. A claim needs the
interval to exclude zero and a difference of at least the minimum effect (`--min-effect`);
otherwise the verdict says no difference is shown, with the interval."""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.fairness import STARVED_MEANS
from ckviz.fairness_intervals import Claim, Interval, paired_difference
from ckviz.report.bias import bias_clause
from ckviz.report.claims import Compared, claim_words, estimate_text, names
from ckviz.report.tenants import tenant_verdict
from ckviz.report.views import Row, ScenarioView, SourceView

VERDICT = "Verdict:"


@dataclass(frozen=True)
class Comparison:
    """A treatment against the reference: its attainment less the reference's, paired."""

    row: Row
    ref: Row
    difference: Interval | None

    def claim(self, min_effect: float) -> Claim | None:
        return self.difference.claim(min_effect) if self.difference else None


def reference(view: SourceView) -> Row:
    """What a treatment is measured against: baseline, else the first plain discipline."""
    plain = [r for r in view.rows if r.label == r.discipline] or view.rows
    return view.row("baseline") or plain[0]


def comparisons(view: SourceView) -> list[Comparison]:
    """Each treatment (duplicates left out) with demand-aware figures, against the reference."""
    ref = reference(view)
    return [
        Comparison(r, ref, _difference(r, ref))
        for r in view.rows
        if r is not ref and r.same_as is None and r.attainment is not None
    ]


def _difference(r: Row, ref: Row) -> Interval | None:
    return paired_difference(
        r.attainment_by_seed, ref.attainment_by_seed, r.resamples_by_seed, ref.resamples_by_seed
    )


def figure_text(r: Row) -> str:
    """The most under-served attainment as `0.73 ± 0.04` (one sample: said so)."""
    return estimate_text(r.attainment_interval)


def compared(c: Comparison) -> Compared:
    return Compared(c.row.label, c.row.attainment_interval, c.difference)


def verdict(view: SourceView, min_effect: float) -> str:
    """`Verdict: ...`: who is fairer or less fair than the reference, with the intervals."""
    if not any(r.attainment is not None for r in view.rows):
        return (
            f"{VERDICT} {_seeds_clause(view)}no demand-aware figures in these results (written "
            "before ckviz measured fair-share attainment); run them again for a verdict."
        )
    ref = reference(view)
    found = comparisons(view)
    said = claim_words(
        ref.label, ref.attainment_interval, [compared(c) for c in found], min_effect, "key"
    )
    fairer = sorted((c for c in found if c.claim(min_effect) == "fairer"), key=_gain, reverse=True)
    best = fairer[0].row if fairer else None
    gains = [g for r in [ref, *([best] if best else [])] if (g := who_gained(r))]
    bias = [b] if (b := bias_clause(view)) else []
    tenants = [t] if (t := tenant_verdict(view, ref, min_effect, best)) else []
    tail = "; ".join([*gains, *bias, *tenants, _starvation_clause(view)])
    return f"{VERDICT} {_seeds_clause(view)}{said}; {tail}."


def who_gained(r: Row) -> str | None:
    """`under baseline (seed-a), burst got 15.2x its fair share, tenant-7 got 0.23`: the most
    over-served key beside the most under-served one, on the first seed."""
    gained, lowest = r.gained, r.underserved_key
    if gained is None or lowest is None:
        return None
    low = next((k.fair_share_attainment for k in r.first.metrics.per_key if k.key == lowest), None)
    if low is None or gained[0] == lowest:
        return None
    seed = r.first.seed
    return (
        f"under {r.label} ({seed}), {gained[0]} got {gained[1]:.1f}x its fair share, "
        f"{lowest} got {low:.2f}"
    )


def _seeds_clause(view: SourceView) -> str:
    seeds = view.seeds_run
    return "one sample (seed " + seeds[0] + "): " if len(seeds) == 1 else ""


def _gain(c: Comparison) -> float:
    return c.difference.estimate if c.difference else 0.0


def _starvation_clause(view: SourceView) -> str:
    starved = starvation(view)
    return "no treatment starved a key" if not starved else "; ".join(starved)


def starvation(view: SourceView) -> list[str]:
    """`<treatment> starved <key> on <seed>`, per treatment (its duplicates left out)."""
    lines = []
    for r in view.rows:
        if r.same_as is not None or not r.starved:
            continue
        by_key: dict[str, list[str]] = {}
        for seed, key in r.starved:
            by_key.setdefault(key, []).append(seed)
        parts = [f"{key} on {names(seeds)}" for key, seeds in by_key.items()]
        lines.append(f"{r.label} starved {names(parts)}")
    return lines


def starvation_finding(view: SourceView) -> str | None:
    """The first finding of a scenario where some treatment starved a key on some seed."""
    starved = starvation(view)
    if not starved:
        return None
    return "Starvation: " + "; ".join(starved) + f" ({STARVED_MEANS})."


def verdicts(scenario: ScenarioView) -> list[str]:
    """One verdict line per results file holding the scenario (the file named when several)."""
    several = len(scenario.views) > 1
    effect = scenario.min_effect
    return [(f"{v.source}: " if several else "") + verdict(v, effect) for v in scenario.views] or [
        f"{VERDICT} no runs of {scenario.name} in these results."
    ]
