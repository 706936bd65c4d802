"""Consistent bias: a key that is the most under-served, or below 0.9 of its fair share, on
every seed of a treatment is no luck of the seeds but the discipline's doing (e.g. a tie
broken by name, the same key losing it every time). Said with the discipline's own rule,
where ckviz knows it. One sample (a single seed, or seeds whose runs are alike) shows no
consistency, so it is never called a bias."""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.disciplines.registry import RULES
from ckviz.fairness import UNDER_FAIR
from ckviz.fairness_intervals import one_sample
from ckviz.report.views import Row, SourceView

SHOWN = 5  # keys named per treatment before "and N more"


@dataclass(frozen=True)
class Bias:
    """A treatment's keys served badly on every seed."""

    treatment: str
    discipline: str
    seeds: int
    lowest: str | None  # the most under-served on every seed
    below: list[str]  # below 0.9 on every seed, by name

    def __str__(self) -> str:
        parts = []
        if self.lowest is not None:
            parts.append(f"{self.lowest} is the most under-served key")
        others = [k for k in self.below if k != self.lowest]
        if others:
            named = ", ".join(others[:SHOWN])
            more = f" and {len(others) - SHOWN} more" if len(others) > SHOWN else ""
            verb = "gets" if len(others) == 1 else "get"
            parts.append(f"{named}{more} {verb} less than {UNDER_FAIR} of their share")
        line = f"under {self.treatment}, {' and '.join(parts)} on every seed ({self.seeds})"
        rule = RULES.get(self.discipline)
        return line + (f" ({self.discipline} picks by: {rule})" if rule else "")


def biases(view: SourceView) -> list[Bias]:
    """Each treatment's consistent bias (its duplicates left out): the key most under-served
    on every seed and the keys below 0.9 on every seed (by name)."""
    found = []
    for r in view.rows:
        if r.same_as is None and len(r.seeds_run) >= 2 and not one_sample(r.attainment_by_seed):
            bias = _row_bias(r)
            if bias.lowest is not None or bias.below:
                found.append(bias)
    return found


def _row_bias(r: Row) -> Bias:
    lowest = {run.metrics.most_underserved_key for run in r.runs}
    below: set[str] | None = None
    for run in r.runs:
        keys = {
            k.key
            for k in run.metrics.per_key
            if k.fair_share_attainment is not None and k.fair_share_attainment < UNDER_FAIR
        }
        below = keys if below is None else below & keys
    key = next(iter(lowest)) if len(lowest) == 1 else None
    return Bias(r.label, r.discipline, len(r.runs), key, sorted(below or ()))


def bias_clause(view: SourceView) -> str | None:
    """The verdict's short words: `consistent bias: vtime against t-4 on every seed`."""
    found = [b for b in biases(view) if b.lowest is not None]
    if not found:
        return None
    against = ", ".join(f"{b.treatment} against {b.lowest}" for b in found)
    return f"consistent bias: {against} on every seed"


def bias_finding(view: SourceView) -> str | None:
    found = biases(view)
    if not found:
        return None
    return "Consistent bias (not the seeds' luck): " + "; ".join(map(str, found)) + "."
