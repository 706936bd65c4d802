"""A scenario's verdict and the finding that must come first: which treatment is fairest by
the demand-aware measure (docs/fairness.md), whether it is so beyond the seeds' spread, and
whether any treatment starved a key on any seed.

A treatment is better than another only when every seed both ran agrees (paired by seed) or
their ranges over the seeds do not overlap; otherwise the difference is within the spread."""

from __future__ import annotations

from collections.abc import Mapping

from ckviz.report.views import Row, ScenarioView, SourceView

VERDICT = "Verdict:"


def clearly_better(mine: Mapping[str, float], theirs: Mapping[str, float], higher: bool) -> bool:
    """`mine` beats `theirs` on every seed both hold, or the two ranges do not overlap."""
    if not mine or not theirs:
        return False
    common = [s for s in mine if s in theirs]
    if common and all((mine[s] > theirs[s]) == higher and mine[s] != theirs[s] for s in common):
        return True
    if higher:
        return min(mine.values()) > max(theirs.values())
    return max(mine.values()) < min(theirs.values())


def reference(view: SourceView) -> Row:
    """What a treatment is measured against: baseline, else the first plain discipline."""
    plain = [r for r in view.rows if r.label == r.discipline] or view.rows
    return view.row("baseline") or plain[0]


def verdict(view: SourceView) -> str:
    """`Verdict: ...`: the fairest treatment, how much fairer than the reference, starvation."""
    judged = [r for r in view.rows if r.attainment is not None]
    if not judged:
        return (
            f"{VERDICT} no demand-aware figures in these results (written before ckviz "
            "measured fair-share attainment); run them again for a verdict."
        )
    ref = reference(view)
    best = max(judged, key=lambda r: r.attainment.mean if r.attainment else 0.0)
    return f"{VERDICT} {_fairest(view, ref, best)}; {_starvation_clause(view)}."


def _fairest(view: SourceView, ref: Row, best: Row) -> str:
    assert best.attainment is not None
    if ref.attainment is None or best is ref or best.attainment.mean <= ref.attainment.mean:
        got = f"{best.attainment.mean:.2f}"
        return (
            f"no treatment is fairer than {ref.label} (its most under-served key gets {got} "
            "of its fair share)"
        )
    line = (
        f"{best.label} is the fairest: its most under-served key gets "
        f"{best.attainment.mean:.2f} of its fair share, {ref.label}'s "
        f"{ref.attainment.mean:.2f}"
    )
    fairer = [
        r.label
        for r in view.rows
        if r is not ref
        and r.same_as is None
        and clearly_better(r.attainment_by_seed, ref.attainment_by_seed, higher=True)
    ]
    if fairer:
        return line + f"; fairer than {ref.label} beyond the seeds' spread: {names(fairer)}"
    return line + f", but within the seeds' spread of {ref.label}"


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
    return (
        "Starvation: " + "; ".join(starved) + " (owed 3 or more dequeues while other keys "
        "were served, and got none of them)."
    )


def verdicts(scenario: ScenarioView) -> list[str]:
    """One verdict line per results file holding the scenario (the file named when several)."""
    several = len(scenario.views) > 1
    return [(f"{v.source}: " if several else "") + verdict(v) for v in scenario.views] or [
        f"{VERDICT} no runs of {scenario.name} in these results."
    ]


def names(labels: list[str]) -> str:
    if len(labels) == 1:
        return labels[0]
    return ", ".join(labels[:-1]) + " and " + labels[-1]
