"""How sure a fairness figure is: intervals for the most under-served key's attainment and for
the difference between two treatments' (docs/fairness.md, "What a claim means").

Over seeds (two or more whose runs differ): a paired t-interval at 95% of the per-seed
differences, t from Student's table (the seeds are few, so a bootstrap over them would be
coarse: three seeds have ten distinct resamples).

Over one sample (one seed, or seeds whose runs are alike, as a trace's are: it replays the same
arrivals whatever the seed): a block bootstrap over the run's own time. The run is cut into
WINDOWS stretches of equal time; each of RESAMPLES resamples draws WINDOWS stretches with
replacement, adds up each key's owed and got over them, and takes the lowest attainment of the
keys it judges (owed MIN_OWED or more). The draws come from a generator of fixed seed, so every
run of every file draws the same stretches: two treatments' resamples are paired draw by draw,
and the interval of their difference is the 2.5th..97.5th percentile of the paired differences.
Only the CANDIDATES keys of lowest attainment over the whole run are looked at in a resample
(the lowest of 100,000 keys is one of them, all but always), so the cost does not grow with the
keys."""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ckviz.fairness import MIN_OWED, KeyService
from ckviz.fairness_judged import attainments
from ckviz.fairness_windows import WINDOWS, Windows

RESAMPLES = 200
CANDIDATES = 32
BOOTSTRAP_SEED = 36  # fixed: the same draws in every run, so resamples pair across runs
MIN_EFFECT = 0.05  # the least difference in attainment worth a claim
# Student's t, two-sided 95%, for 1..30 degrees of freedom (beyond: the normal's 1.96)
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip

Basis = Literal["seeds", "one sample"]
Claim = Literal["fairer", "less fair"]


@lru_cache(maxsize=1)
def draws() -> tuple[tuple[int, ...], ...]:
    """Per resample, how many times each stretch of the run is drawn."""
    rng = random.Random(BOOTSTRAP_SEED)
    out = []
    for _ in range(RESAMPLES):
        counts = [0] * WINDOWS
        for _ in range(WINDOWS):
            counts[rng.randrange(WINDOWS)] += 1
        out.append(tuple(counts))
    return tuple(out)


def resampled_attainment(
    service: Mapping[str, KeyService], windows: Windows
) -> list[float | None] | None:
    """The most under-served attainment of each resample (None where it judges no key);
    None when the run judged no key or served nothing."""
    judged = attainments(service)
    if not judged or not windows.keys:
        return None
    candidates = sorted(judged, key=lambda k: (judged[k], k))[:CANDIDATES]
    # each key's owed and got per stretch as two lists: summed by map, not a generator of
    # pairs (the same terms in the same order, so the same sums; a third of the time)
    stretches = [tuple(zip(*windows.per_window(service, k), strict=True)) for k in candidates]
    out: list[float | None] = []
    for counts in draws():
        lowest: float | None = None
        for owed_in, got_in in stretches:
            owed = sum(map(operator.mul, counts, owed_in))
            if owed < MIN_OWED:
                continue
            got = sum(map(operator.mul, counts, got_in))
            if lowest is None or got / owed < lowest:
                lowest = got / owed
        out.append(None if lowest is None else round(lowest, 6))
    return out


@dataclass(frozen=True)
class Interval:
    """An estimate and its 95% interval (`low`/`high` None: no interval can be had)."""

    estimate: float
    low: float | None
    high: float | None
    basis: Basis
    seeds: int  # seeds paired (1 for one sample)

    @property
    def half_width(self) -> float | None:
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2

    def claim(self, min_effect: float = MIN_EFFECT) -> Claim | None:
        """`fairer` (or `less fair`) when the interval excludes zero and the difference is
        at least `min_effect`; None: no difference shown."""
        if self.low is None or self.high is None:
            return None
        if self.low > 0 and self.estimate >= min_effect:
            return "fairer"
        if self.high < 0 and self.estimate <= -min_effect:
            return "less fair"
        return None


def t95(df: int) -> float:
    return _T95[df - 1] if df <= len(_T95) else 1.96


def _mean(values: Sequence[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def _t_interval(values: Sequence[float], seeds: int) -> Interval:
    mean = _mean(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = t95(len(values) - 1) * sd / math.sqrt(len(values))
    return Interval(mean, mean - half, mean + half, "seeds", seeds)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear between the order statistics (q in 0..1)."""
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    lo = math.floor(at)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (at - lo)


def _bootstrap(estimate: float, values: Sequence[float]) -> Interval:
    if len(values) < RESAMPLES // 2:  # most resamples judged no key: no interval
        return Interval(estimate, None, None, "one sample", 1)
    return Interval(estimate, percentile(values, 0.025), percentile(values, 0.975), "one sample", 1)


Resamples = Mapping[str, Sequence[float | None] | None]


def one_sample(*figures: Mapping[str, float]) -> bool:
    """One seed, or seeds on which each figure is the same (a trace replays the same arrivals
    whatever the seed): one sample, not a spread over seeds."""
    return all(len(set(f.values())) <= 1 for f in figures)


def figure_interval(by_seed: Mapping[str, float], resamples: Resamples) -> Interval | None:
    """A treatment's most under-served attainment: the mean over seeds with its t-interval,
    or over one sample its run's own bootstrap interval."""
    if not by_seed:
        return None
    seed = next(iter(by_seed))
    if one_sample(by_seed):
        drawn = [v for v in resamples.get(seed) or [] if v is not None]
        return _bootstrap(by_seed[seed], drawn)
    return _t_interval(list(by_seed.values()), len(by_seed))


def paired_difference(
    mine: Mapping[str, float],
    theirs: Mapping[str, float],
    my_resamples: Resamples,
    their_resamples: Resamples,
) -> Interval | None:
    """`mine` less `theirs`, paired by seed (None: no seed in common)."""
    common = [s for s in mine if s in theirs]
    if not common:
        return None
    mine = {s: mine[s] for s in common}
    theirs = {s: theirs[s] for s in common}
    if not one_sample(mine, theirs):
        return _t_interval([mine[s] - theirs[s] for s in common], len(common))
    seed = common[0]
    estimate = mine[seed] - theirs[seed]
    a, b = my_resamples.get(seed), their_resamples.get(seed)
    if not a or not b or len(a) != len(b):
        return Interval(estimate, None, None, "one sample", 1)
    paired = [x - y for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    return _bootstrap(estimate, paired)
