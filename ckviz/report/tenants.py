"""The verdict at the tenant grain (docs/fairness.md, "Tenants"): where a scenario's keys belong
to tenants, each treatment's most under-served tenant against the reference's (a paired
difference over seeds, claimed as the key grain claims), who gained among the tenants, and a
tenant served badly on every seed (a consistent bias). A file without tenant figures says
nothing here: its one grain is the key's."""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.disciplines.registry import RULES
from ckviz.fairness import UNDER_FAIR
from ckviz.fairness_intervals import Interval, one_sample, paired_difference
from ckviz.fairness_tenants import most_over_served
from ckviz.model.results import RunResult
from ckviz.report.views import Row, SourceView


@dataclass(frozen=True)
class TenantRow:
    """A treatment's tenant-grain figures over its seeds."""

    row: Row
    by_seed: dict[str, float]  # the most under-served tenant's attainment per seed

    @property
    def mean(self) -> float:
        total = 0.0
        for v in self.by_seed.values():
            total += v
        return total / len(self.by_seed)


def has_tenants(view: SourceView) -> bool:
    return any(run.metrics.per_tenant for r in view.rows for run in r.runs)


def tenant_rows(view: SourceView) -> list[TenantRow]:
    """Each treatment (duplicates left out) whose runs carry a most under-served tenant."""
    found = []
    for r in view.rows:
        by_seed = {
            run.seed: a
            for run in r.runs
            if (a := run.metrics.most_underserved_tenant_attainment) is not None
        }
        if r.same_as is None and by_seed:
            found.append(TenantRow(r, by_seed))
    return found


def most_over_served_tenant(run: RunResult) -> tuple[str, float] | None:
    """The run's most over-served tenant, by the rule the app's status line uses."""
    return most_over_served(
        {t.tenant: t.fair_share_attainment for t in run.metrics.per_tenant or []}
    )


def tenants_gained(run: RunResult, label: str) -> str | None:
    """`under sfq (seed-a), tenant sybil got 2.0x its fair share, tenant honest got 0.12`."""
    gained, lowest = most_over_served_tenant(run), run.metrics.most_underserved_tenant
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
    claim among tenants, and who gained and who paid under the reference, the treatment fairer
    among keys (a sybil split's fair-per-key discipline: who pays for it) and among tenants."""
    rows = tenant_rows(view)
    base = next((t for t in rows if t.row is ref), None)
    if base is None:
        return None
    judged = [(t, _difference(t, base)) for t in rows if t is not base]
    fairer = [(t, d) for t, d in judged if d is not None and d.claim(min_effect) == "fairer"]
    worse = [t.row.label for t, d in judged if d is not None and d.claim(min_effect) == "less fair"]
    low = base.row.runs[0].metrics.most_underserved_tenant
    said = (
        f"at the tenant grain, no treatment is fairer than {ref.label}, whose most under-served "
        f"tenant {low} gets {base.mean:.2f} of its fair share"
    )
    best = base
    if fairer:
        best, d = max(fairer, key=lambda td: td[1].estimate)
        said = (
            f"at the tenant grain, {best.row.label} is fairer than {ref.label}: its most "
            f"under-served tenant gets {best.mean:.2f} of its fair share, {ref.label}'s "
            f"{base.mean:.2f} (difference {d.estimate:+.2f})"
        )
    if worse:
        said += f"; less fair than {ref.label} at the tenant grain: " + ", ".join(worse)
    by_key = next((t for t in rows if t.row is fairer_by_key), None)
    shown = list({id(t): t for t in [base, by_key, best] if t is not None}.values())
    gains = [g for t in shown if (g := tenants_gained(t.row.runs[0], t.row.label))]
    bias = tenant_bias(view)
    return "; ".join([said, *gains, *([bias] if bias else [])])


def _difference(t: TenantRow, base: TenantRow) -> Interval | None:
    return paired_difference(t.by_seed, base.by_seed, {}, {})


def tenant_biases(view: SourceView) -> list[str]:
    """`under sfq, tenant honest is the most under-served tenant on every seed (3)`, per
    treatment whose seeds are not one sample; with the rule the discipline picks by."""
    found = []
    for t in tenant_rows(view):
        runs = t.row.runs
        if len(runs) < 2 or one_sample(t.by_seed):
            continue
        lowest = {run.metrics.most_underserved_tenant for run in runs}
        below: set[str] | None = None
        for run in runs:
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
        rule = RULES.get(t.row.discipline)
        found.append(
            f"under {t.row.label}, tenant {', '.join(named)} is the most under-served "
            f"or below {UNDER_FAIR} of its share on every seed ({len(runs)})"
            + (f" ({t.row.discipline} picks by: {rule})" if rule else "")
        )
    return found


def tenant_bias(view: SourceView) -> str | None:
    """The verdict's short words: `consistent bias at the tenant grain: sfq against honest`."""
    against = []
    for t in tenant_rows(view):
        if len(t.row.runs) < 2 or one_sample(t.by_seed):
            continue
        lowest = {run.metrics.most_underserved_tenant for run in t.row.runs}
        if len(lowest) == 1 and None not in lowest:
            against.append(f"{t.row.label} against {next(iter(lowest))}")
    return (
        f"consistent bias at the tenant grain: {', '.join(against)} on every seed"
        if against
        else None
    )


def tenant_findings(view: SourceView, min_effect: float) -> list[str]:
    """The findings at the tenant grain: who pays, who gained, and a consistent bias."""
    if not has_tenants(view):
        return []
    lines = []
    for t in tenant_rows(view):
        run = t.row.runs[0]
        gained = tenants_gained(run, t.row.label)
        if gained:
            lines.append(gained)
    found = ["Tenants: " + "; ".join(lines) + "."] if lines else []
    biases = tenant_biases(view)
    if biases:
        found.append(
            "Consistent bias at the tenant grain (not the seeds' luck): " + "; ".join(biases) + "."
        )
    return found
