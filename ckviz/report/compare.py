"""Comparing results files as a CI gate: may they be compared at all, by how much each figure
moved, and did the change make the queue less fair?

Files are comparable when they ran the same scenarios (the same contents: keys or trace, env,
caps, knobs), seeds and treatments; otherwise a difference between them may be the workload's,
not the code's. A figure "got worse" by the direction that matters: fairness figures down,
the light key's wait up."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ckviz.model.results import ScenarioResult
from ckviz.report.sources import Source


def mismatches(base: Source, head: Source) -> list[str]:
    """What differs between two files that makes their figures incomparable, one line each."""
    a, b = base.results, head.results
    found = []
    for what, mine, theirs in (
        ("scenarios", [s.name for s in a.scenarios], [s.name for s in b.scenarios]),
        ("seeds", a.matrix.seeds, b.matrix.seeds),
        ("treatments", a.matrix.disciplines, b.matrix.disciplines),
    ):
        if mine != theirs:
            found.append(
                f"{what}: {_listed(mine)} in {base.label}, {_listed(theirs)} in {head.label}"
            )
    found += _contents(base, head)
    return found


def relabelled(base: Source, head: Source) -> list[str]:
    """Each treatment label that runs another discipline or other caps in `head` than in
    `base`: its figures are another treatment's, never comparable (one line each)."""
    theirs = {s.name: s for s in head.results.scenarios}
    found = []
    for mine in base.results.scenarios:
        other = theirs.get(mine.name)
        if other is None:
            continue
        was, now = _meanings(mine), _meanings(other)
        for label in (label for label in was if label in now):
            for what, a, b in zip(("discipline", "caps"), was[label], now[label], strict=True):
                if a != b:
                    found.append(
                        f"treatment {label} of {mine.name}: {what} {a} in {base.label}, "
                        f"{b} in {head.label}"
                    )
    return found


def _meanings(scenario: ScenarioResult) -> dict[str, tuple[str, str]]:
    """Each label's discipline and caps (`per-key/total`, - for none), from its first run."""
    out: dict[str, tuple[str, str]] = {}
    for r in scenario.runs:
        caps = f"{r.per_key_cap or '-'}/{r.total_cap or '-'}"
        out.setdefault(r.treatment, (r.discipline, caps))
    return out


def _contents(base: Source, head: Source) -> list[str]:
    theirs = {s.name: s for s in head.results.scenarios}
    found = []
    for mine in base.results.scenarios:
        other = theirs.get(mine.name)
        if other is None:
            continue
        why = _differs(mine, other)
        if why:
            found.append(
                f"scenario {mine.name}: {why} differ between {base.label} and {head.label}"
            )
    return found


def _differs(a: ScenarioResult, b: ScenarioResult) -> str | None:
    if a.digest is not None and b.digest is not None and a.digest != b.digest:
        return "its contents (keys or trace, env, caps, knobs)"
    if a.weights != b.weights:
        return "its keys or weights"
    return None


def _listed(values: Sequence[str]) -> str:
    return ",".join(values) if values else "(none)"


def change_pct(was: float, now: float) -> float:
    """Relative change in %, from `was` (inf when `was` is 0 and `now` is not)."""
    if was == now:
        return 0.0
    if was == 0:
        return math.copysign(math.inf, now)
    return (now - was) / abs(was) * 100


def pct_text(was: float, now: float) -> str:
    change = change_pct(was, now)
    if math.isinf(change):
        return "new" if was == 0 else "n/a"
    return f"{change:+.1f}%" if change else "±0%"
