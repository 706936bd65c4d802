"""Plain-words findings, one short list per scenario, read off the same numbers the figures
plot (never written by hand): starvation first, who cuts the headline wait (only beyond the
seeds' spread), how fair each treatment is by the demand-aware measure, which rows coincide,
what each cap does, and what changed between results files; per sweep, how each treatment's
figures move as the swept value grows."""

from __future__ import annotations

from collections.abc import Callable

from ckviz.fairness_intervals import Interval, paired_difference
from ckviz.model.results import Spread
from ckviz.report.bias import bias_finding
from ckviz.report.claims import interval_text, signed
from ckviz.report.sweeps import SweepView, value_text
from ckviz.report.tenants import tenant_difference, tenant_findings
from ckviz.report.verdicts import (
    comparisons,
    figure_text,
    reference,
    starvation_finding,
    who_gained,
)
from ckviz.report.views import Row, ScenarioView, SourceView, signature

SAME = 0.1  # within 10% of the reference reads as "does nothing"
LONGER = 1.2  # makespan 20% longer or more is worth saying


def findings(scenario: ScenarioView) -> list[str]:
    out: list[str] = []
    several = len(scenario.views) > 1
    for view in scenario.views:
        prefix = f"{view.source}: " if several else ""
        out += [prefix + line for line in source_findings(scenario, view)]
    first = scenario.views[0] if scenario.views else None
    for other in scenario.views[1:]:
        out.append(changes(first, other, scenario.unit))  # type: ignore[arg-type]
    if scenario.missing_from:
        out.append(f"{scenario.name} is not in {', '.join(scenario.missing_from)}.")
    return out


def source_findings(scenario: ScenarioView, view: SourceView) -> list[str]:
    lines = [starvation_finding(view), bias_finding(view), _headline_wait(scenario, view)]
    lines.append(_fairness(view, scenario.min_effect))
    lines.append(_gains(view))
    lines += tenant_findings(view, reference(view), scenario.min_effect)
    lines += _identical(view)
    lines += [line for r in view.rows if (line := _cap_effect(scenario, view, r))]
    return [line for line in lines if line]


def wait_of(scenario: ScenarioView) -> tuple[str, Callable[[Row], float]]:
    """The wait a finding speaks of: the light key's when the scenario names one."""
    if scenario.light_key is not None:
        light = scenario.light_key
        return f"{light}'s mean wait", lambda r: r.light_wait.mean if r.light_wait else 0.0
    return "the worst-served key's mean wait", lambda r: r.worst_wait.mean


def wait_difference(r: Row, ref: Row) -> Interval | None:
    """`r`'s light-key mean wait less `ref`'s, paired over seeds (one sample: no interval)."""
    return paired_difference(r.light_wait_by_seed, ref.light_wait_by_seed, {}, {})


def _moves_wait(r: Row, ref: Row, wait: Callable[[Row], float], lower: bool) -> bool:
    """A cut (or rise) of at least SAME of the reference's wait, its interval clear of 0."""
    d = wait_difference(r, ref)
    if d is None or d.low is None or d.high is None:
        return False
    if lower:
        return d.high < 0 and wait(r) < wait(ref) * (1 - SAME)
    return d.low > 0 and wait(r) > wait(ref) * (1 + SAME)


def _headline_wait(scenario: ScenarioView, view: SourceView) -> str | None:
    """Who cuts the light key's wait: by at least 10% with a paired interval clear of 0.
    Without a light key there is no headline wait: the largest mean wait is often a flooding
    key waiting for its own backlog, which fair scheduling is right to make it do."""
    if scenario.light_key is None:
        return None
    plain = [r for r in view.rows if r.label == r.discipline] or view.rows
    ref = reference(view)
    what, wait = wait_of(scenario)
    u = scenario.unit
    lowest = min(plain, key=wait)
    cut = [
        r for r in plain if r is not ref and r.same_as is None and _moves_wait(r, ref, wait, True)
    ]
    if not cut:
        return _no_cut(what, ref, lowest, wait, u)
    best = min(cut, key=wait)
    line = f"{best.label} cuts {what} from {ms(wait(ref), u)} ({ref.label}) to {ms(wait(best), u)}"
    line += f" ({_wait_interval(best, ref, u)})"
    if len(cut) > 1:
        others = _names([r.label for r in cut if r is not best])
        line += f" (also cut with an interval clear of 0: {others})"
    raised = [r for r in plain if r.same_as is None and _moves_wait(r, ref, wait, False)]
    if raised:
        worst = max(raised, key=wait)
        line += f"; {worst.label} raises it to {ms(wait(worst), u)}"
    return line + "."


def _no_cut(what: str, ref: Row, lowest: Row, wait: Callable[[Row], float], u: str) -> str:
    if lowest is ref or wait(lowest) > wait(ref) * (1 - SAME):
        return (
            f"No discipline cuts {what} much below {ref.label}'s {ms(wait(ref), u)} "
            f"(lowest: {lowest.label} {ms(wait(lowest), u)})."
        )
    return (
        f"No cut of {what} is shown: {lowest.label}'s {ms(wait(lowest), u)} against "
        f"{ref.label}'s {ms(wait(ref), u)} ({_wait_interval(lowest, ref, u)})."
    )


def _wait_interval(r: Row, ref: Row, u: str) -> str:
    d = wait_difference(r, ref)
    if d is None:
        return "no seed in common"
    if d.low is None or d.high is None:
        return "one sample: no interval for waits, so not a claim"
    span = f"95% interval {ms(d.low, u)}..{ms(d.high, u)}"
    return f"difference {ms(d.estimate, u)}, {span}, paired over {d.seeds} seeds"


def _fairness(view: SourceView, min_effect: float) -> str:
    """The demand-aware range over treatments, each against the reference with its interval
    (with the spike's figure beside it)."""
    rows = [r for r in view.rows if r.attainment is not None]
    if not rows:
        return _spike_fairness(view)
    hi = max(rows, key=lambda r: r.attainment.mean if r.attainment else 0.0)
    lo = min(rows, key=lambda r: r.attainment.mean if r.attainment else 0.0)
    line = (
        f"The most under-served key gets from {figure_text(lo)} of its fair share "
        f"({lo.label}) to {figure_text(hi)} ({hi.label})"
    )
    found = [c for c in comparisons(view) if c.difference is not None]
    if found:
        said = [
            f"{c.row.label} {c.claim(min_effect) or 'no difference shown'} "
            f"({signed(c.difference.estimate)}, {interval_text(c.difference)})"
            for c in found
            if c.difference is not None
        ]
        line += f"; against {found[0].ref.label}: " + ", ".join(said)
    below = [r for r in rows if r.below_0_9 is not None and r.below_0_9.mean > 0]
    if below:
        worst = max(below, key=lambda r: r.below_0_9.mean if r.below_0_9 else 0.0)
        assert worst.below_0_9 is not None
        line += (
            f"; under {worst.label}, {worst.below_0_9.mean:.0%} of the judged keys get less "
            "than 0.9 of theirs"
        )
    return line + f". {_spike_fairness(view)}"


def _gains(view: SourceView) -> str | None:
    """Who gained: each treatment's most over-served key beside its most under-served one."""
    said = [line for r in view.rows if r.same_as is None and (line := who_gained(r))]
    if not said:
        return None
    return "Who gained: " + "; ".join(said) + "."


def _spike_fairness(view: SourceView) -> str:
    rows = view.rows
    hi = max(rows, key=lambda r: r.worst_share.mean)
    lo = min(rows, key=lambda r: r.worst_share.mean)
    if hi.worst_share.mean == lo.worst_share.mean:
        return f"Every treatment gives the same worst share/weight, {share(hi.worst_share.mean)}."
    jain_hi = max(rows, key=lambda r: r.jain.mean)
    jain_lo = min(rows, key=lambda r: r.jain.mean)
    return (
        f"Worst share/weight (1 = its fair share) runs from {share(lo.worst_share.mean)} "
        f"({lo.label}) to {share(hi.worst_share.mean)} ({hi.label}); "
        f"Jain from {share(jain_lo.jain.mean)} ({jain_lo.label}) "
        f"to {share(jain_hi.jain.mean)} ({jain_hi.label})."
    )


def _identical(view: SourceView) -> list[str]:
    groups: dict[tuple[object, ...], list[str]] = {}
    for r in view.rows:
        groups.setdefault(signature(r), []).append(r.label)
    return [
        f"{_names(labels)} give identical figures (every mean, min and max over seeds)."
        for labels in groups.values()
        if len(labels) > 1
    ]


def _cap_effect(scenario: ScenarioView, view: SourceView, r: Row) -> str | None:
    """A treatment with caps against its discipline without: cuts, raises or does nothing."""
    ref = view.row(r.discipline)
    if r.label == r.discipline or ref is None:
        return None
    what, wait = wait_of(scenario)
    u = scenario.unit
    mine, theirs = wait(r), wait(ref)
    if abs(mine - theirs) <= SAME * theirs:
        versus = f"{ms(mine, u)} vs {ms(theirs, u)} under {ref.label}"
        line = f"{r.label} does nothing for {what} ({versus})"
    else:
        verb = "cuts" if mine < theirs else "raises"
        line = f"{r.label} {verb} {what} from {ms(theirs, u)} ({ref.label}) to {ms(mine, u)}"
    ratio = r.makespan.mean / ref.makespan.mean if ref.makespan.mean else 1.0
    if ratio >= LONGER:
        line += (
            f", and stretches the makespan from {ms(ref.makespan.mean, u)} to "
            f"{ms(r.makespan.mean, u)} (x{ratio:.1f})"
        )
    return line + "."


def ms(value: float, unit: str = "ms") -> str:
    return f"{value:.0f} {unit}" if abs(value) >= 10 else f"{value:.1f} {unit}"


def share(value: float) -> str:
    return f"{value:.3f}"


FIGURES: tuple[tuple[str, Callable[[Row], Spread | None], Callable[[float, str], str]], ...] = (
    ("fair-share attainment", lambda r: r.attainment, lambda v, u: share(v)),
    ("tenant fair-share attainment", lambda r: r.tenant_attainment, lambda v, u: share(v)),
    ("worst share/weight", lambda r: r.worst_share, lambda v, u: share(v)),
    ("Jain", lambda r: r.jain, lambda v, u: share(v)),
    ("light-key mean wait", lambda r: r.light_wait, ms),
    ("worst-key mean wait", lambda r: r.worst_wait, ms),
    ("makespan", lambda r: r.makespan, ms),
)


def changes(base: SourceView, other: SourceView, unit: str = "ms") -> str:
    """What moved between two files, treatment by treatment (means over seeds)."""
    moved: list[str] = []
    for r in other.rows:
        was = base.row(r.label)
        if was is None:
            moved.append(f"{r.label} is new")
            continue
        diffs = [
            f"{name} {fmt(a.mean, unit)} -> {fmt(b.mean, unit)}"
            + (f" ({_file_difference(name, r, was)})" if name in PAIRED else "")
            for name, get, fmt in FIGURES
            if (a := get(was)) is not None and (b := get(r)) is not None and a.mean != b.mean
        ]
        if diffs:
            moved.append(f"{r.label}: {', '.join(diffs)}")
    gone = [r.label for r in base.rows if other.row(r.label) is None]
    if gone:
        moved.append(f"{_names(gone)} only in {base.source}")
    if not moved:
        return f"{base.source} -> {other.source}: no figure moved."
    return f"{base.source} -> {other.source}: " + "; ".join(moved) + "."


PAIRED = ("fair-share attainment", "tenant fair-share attainment")  # said with an interval


def _file_difference(name: str, now: Row, was: Row) -> str:
    """A treatment's attainment (the most under-served key's, or tenant's) in a later file
    less the first file's, paired by seed."""
    if name == PAIRED[0]:
        d = paired_difference(
            now.attainment_by_seed,
            was.attainment_by_seed,
            now.resamples_by_seed,
            was.resamples_by_seed,
        )
    else:
        d = tenant_difference(now, was)
    if d is None:
        return "no seed in common"
    return f"difference {signed(d.estimate)}, {interval_text(d)}"


def _names(labels: list[str]) -> str:
    if len(labels) == 1:
        return labels[0]
    return ", ".join(labels[:-1]) + " and " + labels[-1]


FLAT = 1.5  # timing is noisy: a cost within 1.5x either way reads as flat


def sweep_findings(sweep: SweepView) -> list[str]:
    """How each treatment's figures move from the smallest swept value to the largest."""
    lo, hi = value_text(sweep.values[0]), value_text(sweep.values[-1])
    grows = f"As {sweep.parameter} grows from {lo} to {hi}"
    lines = [_trend(grows, "worst share/weight", sweep, lambda r: r.worst_share, share)]
    if sweep.light_key is not None:
        what = f"{sweep.light_key}'s mean wait"
        lines.append(
            _trend(grows, what, sweep, lambda r: r.light_wait, lambda v: ms(v, sweep.unit))
        )
    lines.append(_cost_trend(sweep, lo, hi))
    return [line for line in lines if line]


def _ends(sweep: SweepView, get: Callable[[Row], Spread | None]) -> list[tuple[str, float, float]]:
    """(line, mean at its smallest value, mean at its largest) for lines with two values."""
    ends = []
    for line in sweep.lines:
        points = line.figure(get)
        if len(points) >= 2:
            ends.append((line.label, points[0][1].mean, points[-1][1].mean))
    return ends


def _trend(
    grows: str,
    what: str,
    sweep: SweepView,
    get: Callable[[Row], Spread | None],
    fmt: Callable[[float], str],
) -> str:
    groups: dict[str, list[str]] = {"falls": [], "rises": [], "stays within 10%": []}
    for label, first, last in _ends(sweep, get):
        if abs(last - first) <= SAME * max(abs(first), abs(last)):
            verb = "stays within 10%"
        else:
            verb = "falls" if last < first else "rises"
        groups[verb].append(f"{label} ({fmt(first)} -> {fmt(last)})")
    parts = [f"{verb} for {_names(members)}" for verb, members in groups.items() if members]
    return f"{grows}, {what} " + "; ".join(parts) + "." if parts else ""


def _cost_trend(sweep: SweepView, lo: str, hi: str) -> str:
    parts = []
    for label, first, last in _ends(sweep, lambda r: r.cost_per_run):
        ratio = last / first if first else 1.0
        span = f"{first:.2f} -> {last:.2f} ms"
        if 1 / FLAT <= ratio <= FLAT:
            parts.append(f"{label} stays flat ({span})")
        else:
            verb = "grows" if ratio > 1 else "falls to"
            parts.append(f"{label} {verb} x{ratio:.{1 if ratio > 1 else 2}f} ({span})")
    if not parts:
        return ""
    return (
        f"Cost per dequeued run (wall ms: timing, depends on the machine) from {sweep.parameter} "
        f"= {lo} to {hi}: " + "; ".join(parts) + "."
    )
