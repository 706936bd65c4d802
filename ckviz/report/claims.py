"""The words of a comparison between treatments, at either grain (keys or tenants): a figure
with its 95% interval, a paired difference with its interval, and the claim the rule allows
(ckviz/fairness_intervals.py: the interval clear of 0 and a difference of at least the minimum
effect), else "no difference shown" with the interval. One wording, so a tenant's claim reads
as a key's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ckviz.fairness_intervals import Claim, Interval
from ckviz.fairness_windows import WINDOWS

Grain = Literal["key", "tenant"]


def signed(value: float) -> str:
    return f"{value:+.2f}"


def interval_text(d: Interval) -> str:
    """`95% interval +0.12..+0.22, paired over 3 seeds`, or over one sample its basis."""
    if d.low is None or d.high is None:
        return "one sample, no interval (a file from before ckviz kept the run's own)"
    span = f"95% interval {signed(d.low)}..{signed(d.high)}"
    if d.basis == "one sample":
        return f"{span}, one sample: the run's {WINDOWS} time windows resampled"
    return f"{span}, paired over {d.seeds} seeds"


def estimate_text(i: Interval | None) -> str:
    """A most under-served attainment as `0.73 ± 0.04` (one sample: said so)."""
    if i is None:
        return "-"
    half = i.half_width
    shown = f"{i.estimate:.2f}" + (f" ± {half:.2f}" if half is not None else "")
    return shown + (" (one sample)" if i.basis == "one sample" else "")


def difference_text(d: Interval) -> str:
    return f"difference {signed(d.estimate)}, {interval_text(d)}"


@dataclass(frozen=True)
class Compared:
    """A treatment against the reference at one grain: its figure (with its interval) and
    its most under-served attainment less the reference's, paired."""

    label: str
    figure: Interval | None
    difference: Interval | None

    def claim(self, min_effect: float) -> Claim | None:
        return self.difference.claim(min_effect) if self.difference else None

    @property
    def gain(self) -> float:
        return self.difference.estimate if self.difference else 0.0

    def short(self) -> str:
        assert self.difference is not None
        return f"{self.label} ({difference_text(self.difference)})"


def claim_words(
    ref: str, ref_figure: Interval | None, found: list[Compared], min_effect: float, grain: Grain
) -> str:
    """Who is fairer or less fair than the reference `ref`, each with its interval; else no
    difference shown, with the largest difference and its interval."""
    claims = [(c, c.claim(min_effect)) for c in found]
    if not any(k for _, k in claims):
        return _no_claim(ref, ref_figure, found, min_effect, grain)
    fairer = sorted((c for c, k in claims if k == "fairer"), key=lambda c: c.gain, reverse=True)
    worse = sorted((c for c, k in claims if k == "less fair"), key=lambda c: c.gain)
    parts = []
    if fairer:
        best = fairer[0]
        assert best.difference is not None
        parts.append(
            f"{best.label} is fairer than {ref}: its most under-served {grain} gets "
            f"{estimate_text(best.figure)} of its fair share, {ref}'s "
            f"{estimate_text(ref_figure)} ({difference_text(best.difference)})"
        )
        if len(fairer) > 1:
            parts.append(f"also fairer than {ref}: " + names([c.short() for c in fairer[1:]]))
    if worse:
        parts.append(f"less fair than {ref}: " + names([c.short() for c in worse]))
    if not fairer:
        parts.insert(0, f"no treatment is fairer than {ref} ({estimate_text(ref_figure)})")
    return "; ".join(parts)


def _no_claim(
    ref: str, ref_figure: Interval | None, found: list[Compared], min_effect: float, grain: Grain
) -> str:
    line = (
        f"no difference shown: {ref}'s most under-served {grain} gets "
        f"{estimate_text(ref_figure)} of its fair share"
    )
    judged = [c for c in found if c.difference is not None]
    if not judged:
        return line
    far = max(judged, key=lambda c: abs(c.gain))
    return (
        line + f", and no treatment differs from it by {min_effect:g} or more with an interval "
        f"that excludes 0 (the largest: {far.short()})"
    )


def names(labels: list[str]) -> str:
    if len(labels) == 1:
        return labels[0]
    return ", ".join(labels[:-1]) + " and " + labels[-1]
