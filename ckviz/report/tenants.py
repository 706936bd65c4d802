"""The verdict at the tenant grain (docs/fairness.md, "Tenants"): where a scenario's keys belong
to tenants, each treatment's most under-served tenant against the reference's (a paired
difference with its 95% interval, over seeds or over one sample the run's own resamples,
claimed by the key grain's rule and in its words: report/claims.py), who gained among the
tenants, and a tenant served badly on every seed (a consistent bias). A file without tenant
figures says nothing here: its one grain is the key's."""

from __future__ import annotations

from ckviz.disciplines.registry import RULES
from ckviz.fairness import UNDER_FAIR
from ckviz.fairness_intervals import Interval, one_sample, paired_difference
from ckviz.fairness_judged import most_over_served
from ckviz.model.results import RunResult
from ckviz.report.claims import Compared, claim_words, estimate_text, interval_text, signed
from ckviz.report.views import Row, SourceView


def has_tenants(view: SourceView) -> bool:
    return any(run.metrics.per_tenant for r in view.rows for run in r.runs)


def tenant_rows(view: SourceView) -> list[Row]:
    """Each treatment (duplicates left out) whose runs carry a most under-served tenant."""
    return [r for r in view.rows if r.same_as is None and r.tenant_attainment_by_seed]


def tenant_difference(r: Row, ref: Row) -> Interval | None:
    """`r`'s most under-served tenant's attainment less `ref`'s, paired by seed."""
    return paired_difference(
        r.tenant_attainment_by_seed,
        ref.tenant_attainment_by_seed,
        r.tenant_resamples_by_seed,
        ref.tenant_resamples_by_seed,
    )


def tenant_comparisons(view: SourceView, ref: Row) -> list[Compared]:
    """Each treatment with tenant figures against the reference, at the tenant grain."""
    return [
        Compared(r.label, r.tenant_interval, tenant_difference(r, ref))
        for r in tenant_rows(view)
        if r is not ref
    ]


def over_served_tenant(run: RunResult) -> tuple[str, float] | None:
    return most_over_served(
        {t.tenant: t.fair_share_attainment for t in run.metrics.per_tenant or []}
    )


def tenants_gained(run: RunResult, label: str) -> str | None:
    """`under sfq (seed-a), tenant sybil got 2.0x its fair share, tenant honest got 0.12`."""
    gained, lowest = over_served_tenant(run), run.metrics.most_underserved_tenant
    low = run.metrics.most_underserved_tenant_attainment
    if gained is None or lowest is None or low is None or gained[0] == lowest:
        return None
    return (
        f"under {label} ({run.seed}), tenant {gained[0]} got {gained[1]:.1f}x its fair share, "
        f"tenant {lowest} got {low:.2f}"
    )


def tenant_verdict(
    view: SourceView, ref: Row, min_effect: float, fairer_by_key: Row | None = None
) -> str | None:
    """The verdict's tenant-grain clause, or None when the file has no tenant figures: the
    claim among tenants (with its interval), and who gained and who paid under the reference,
    the treatment fairer among keys (a sybil split's fair-per-key discipline: who pays for it)
    and the one fairer among tenants."""
    if ref not in tenant_rows(view):
        return None
    found = tenant_comparisons(view, ref)
    said = "at the tenant grain, " + claim_words(
        ref.label, ref.tenant_interval, found, min_effect, "tenant"
    )
    fairer = [c for c in found if c.claim(min_effect) == "fairer"]
    best = view.row(max(fairer, key=lambda c: c.gain).label) if fairer else None
    shown = list({id(r): r for r in [ref, fairer_by_key, best] if r is not None}.values())
    gains = [g for r in shown if (g := tenants_gained(r.first, r.label))]
    bias = tenant_bias(view)
    return "; ".join([said, *gains, *([bias] if bias else [])])


def tenant_biases(view: SourceView) -> list[str]:
    """`under sfq, tenant honest is the most under-served tenant on every seed (3)`, per
    treatment whose seeds are not one sample; with the rule the discipline picks by."""
    found = []
    for r in tenant_rows(view):
        if len(r.runs) < 2 or one_sample(r.tenant_attainment_by_seed):
            continue
        lowest = {run.metrics.most_underserved_tenant for run in r.runs}
        below: set[str] | None = None
        for run in r.runs:
            under = {
                x.tenant
                for x in run.metrics.per_tenant or []
                if x.fair_share_attainment is not None and x.fair_share_attainment < UNDER_FAIR
            }
            below = under if below is None else below & under
        one = {x for x in lowest if x is not None} if len(lowest) == 1 else set()
        named = sorted(one | (below or set()))
        if not named:
            continue
        rule = RULES.get(r.discipline)
        found.append(
            f"under {r.label}, tenant {', '.join(named)} is the most under-served "
            f"or below {UNDER_FAIR} of its share on every seed ({len(r.runs)})"
            + (f" ({r.discipline} picks by: {rule})" if rule else "")
        )
    return found


def tenant_bias(view: SourceView) -> str | None:
    """The verdict's short words: `consistent bias at the tenant grain: sfq against honest`."""
    against = []
    for r in tenant_rows(view):
        if len(r.runs) < 2 or one_sample(r.tenant_attainment_by_seed):
            continue
        lowest = {run.metrics.most_underserved_tenant for run in r.runs}
        if len(lowest) == 1 and None not in lowest:
            against.append(f"{r.label} against {next(iter(lowest))}")
    return (
        f"consistent bias at the tenant grain: {', '.join(against)} on every seed"
        if against
        else None
    )


def tenant_range(view: SourceView, ref: Row, min_effect: float) -> str | None:
    """`At the tenant grain, the most under-served tenant gets from 0.12 ± 0.03 (one sample)
    of its fair share (sfq) to ...; against baseline: sfq no difference shown (+0.01, ...)`."""
    rows = tenant_rows(view)
    if not rows:
        return None
    lo = min(rows, key=lambda r: _mean(r.tenant_attainment_by_seed))
    hi = max(rows, key=lambda r: _mean(r.tenant_attainment_by_seed))
    line = (
        f"At the tenant grain, the most under-served tenant gets from "
        f"{estimate_text(lo.tenant_interval)} of its fair share ({lo.label}) to "
        f"{estimate_text(hi.tenant_interval)} ({hi.label})"
    )
    found = [c for c in tenant_comparisons(view, ref) if c.difference is not None]
    if ref in rows and found:
        said = [
            f"{c.label} {c.claim(min_effect) or 'no difference shown'} "
            f"({signed(c.gain)}, {interval_text(c.difference)})"
            for c in found
            if c.difference is not None
        ]
        line += f"; against {ref.label}: " + ", ".join(said)
    return line + "."


def _mean(by_seed: dict[str, float]) -> float:
    total = 0.0
    for v in by_seed.values():
        total += v
    return total / len(by_seed)


def tenant_findings(view: SourceView, ref: Row, min_effect: float) -> list[str]:
    """The findings at the tenant grain: the claims with their intervals, who pays and who
    gained, and a consistent bias."""
    if not has_tenants(view):
        return []
    found = [line] if (line := tenant_range(view, ref, min_effect)) else []
    gains = [g for r in tenant_rows(view) if (g := tenants_gained(r.first, r.label))]
    found += ["Tenants: " + "; ".join(gains) + "."] if gains else []
    biases = tenant_biases(view)
    if biases:
        found.append(
            "Consistent bias at the tenant grain (not the seeds' luck): " + "; ".join(biases) + "."
        )
    return found
