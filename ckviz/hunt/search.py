"""The search: Hypothesis's targeted property-based testing, pointed at starvation.

Two passes over the same seeded example sequence. Pass 1 explores: each workload is run,
`hypothesis.target` steers generation toward higher starvation, and the worst one is kept.
Pass 2 replays the same sequence with a property that fails once a workload starves at least
as badly as pass 1's worst, so Hypothesis's shrinker reduces that workload to a small one
with the same (or worse) figure. A run that breaks a queue invariant fails pass 1 itself and
is shrunk the same way: it is reported as a bug.

The example budget makes a hunt deterministic for a given `--seed`; `--seconds` only caps the
time, and a hunt cut by it says how many examples it ran so the run can be repeated exactly.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis.strategies import SearchStrategy

from ckviz.errors import InvariantViolation
from ckviz.hunt.objective import Verdict
from ckviz.hunt.space import HuntCase
from ckviz.outputs.interrupts import INTERRUPTS

Evaluate = Callable[[HuntCase], Verdict]
Progress = Callable[[int, Verdict | None], None]
_LABEL = "starvation"


class _TimeUp(BaseException):
    """Ends pass 1 at the time cap; a BaseException, so Hypothesis does not shrink it."""


@dataclass(slots=True)
class Finding:
    """What a hunt found: the worst workload, its verdict, and how the search went."""

    case: HuntCase | None = None
    verdict: Verdict | None = None
    examples: int = 0
    cut_by_time: bool = False
    bug: InvariantViolation | None = None  # set when a workload broke an invariant
    running: HuntCase | None = None  # the case being evaluated (after a bug: the shrunk one)
    shrunk: bool = False
    shrink_cut: bool = False  # shrinking stopped at its deadline (the case is as bad, larger)
    explored: Verdict | None = None  # pass 1's worst, before shrinking

    def offer(self, case: HuntCase, verdict: Verdict) -> None:
        if self.verdict is None or verdict.starvation > self.verdict.starvation:
            self.case, self.verdict = case, verdict


class _Failed(AssertionError):
    """Pass 2's property failing: this workload starves at least as badly as the worst."""


def hunt(
    workloads: SearchStrategy[HuntCase],
    evaluate: Evaluate,
    *,
    examples: int,
    seconds: float,
    seed: int,
    progress: Progress | None = None,
    shrink_until: float | None = None,
    announce: Callable[[str], None] | None = None,
) -> Finding:
    """Search `workloads` for the one `evaluate` finds most starving for at most `seconds`;
    shrink it, until the monotonic instant `shrink_until` when given (else without limit)."""
    finding = Finding()
    deadline = time.monotonic() + seconds
    try:
        # polled: a ctrl-c only notes the request, which the next workload acts on; raised from
        # the handler it could land in Hypothesis's gc callback, where Python ignores it
        with _no_local_constants(), INTERRUPTS.polled():
            _explore(workloads, evaluate, finding, examples, seed, deadline, progress)
    except InvariantViolation as bug:
        finding.bug = bug  # the last case run is Hypothesis's shrunk replay of the failure
        finding.case, finding.verdict = finding.running, None
        return finding
    except (_TimeUp, KeyboardInterrupt) as stop:
        finding.cut_by_time = isinstance(stop, _TimeUp)
        if isinstance(stop, KeyboardInterrupt):
            raise _Interrupted(finding) from None
    finding.explored = finding.verdict
    if finding.verdict is not None and finding.verdict.starvation > 0:
        if announce is not None:
            announce(f"shrinking the worst of {finding.examples} workloads")
        with _no_local_constants():
            _shrink(workloads, evaluate, finding, seed, shrink_until)
    return finding


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C during a hunt, carrying the best found so far."""

    def __init__(self, finding: Finding) -> None:
        super().__init__()
        self.finding = finding


Interrupted = _Interrupted


@contextlib.contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis (6.1xx) now and then draws a constant found in whatever local modules are
    loaded; then what a seeded hunt finds would depend on which modules a process imported,
    and on whether ckviz is installed as a wheel or from a checkout. Offer it none."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - an older Hypothesis has no local constants
        yield
        return
    found = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if found is None or cache is None:  # pragma: no cover - another Hypothesis layout
        yield
        return
    none = copy.deepcopy(providers._local_constants)  # same shape, emptied below
    for values in (none.integers, none.floats, none.bytes, none.strings):
        values.clear()
    providers._get_local_constants = lambda: none
    cache.cache.clear()  # constants chosen with the loaded modules' help are forgotten
    try:
        yield
    finally:
        providers._get_local_constants = found
        cache.cache.clear()


def _settings(examples: int, phases: list[Phase]) -> settings:
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        report_multiple_bugs=False,
    )


def _explore(
    workloads: SearchStrategy[HuntCase],
    evaluate: Evaluate,
    finding: Finding,
    examples: int,
    seed: int,
    deadline: float,
    progress: Progress | None,
) -> None:
    @_settings(examples, [Phase.generate, Phase.target, Phase.shrink])
    @hypothesis_seed(seed)
    @given(workloads)
    def explore(case: HuntCase) -> None:
        if INTERRUPTS.requested:
            raise KeyboardInterrupt
        if time.monotonic() > deadline:
            raise _TimeUp
        finding.running = case
        verdict = evaluate(case)  # an InvariantViolation fails the property: shrunk, reported
        finding.examples += 1
        target(verdict.starvation, label=_LABEL)
        finding.offer(case, verdict)
        if progress is not None:
            progress(finding.examples, finding.verdict)

    explore()


def _shrink(
    workloads: SearchStrategy[HuntCase],
    evaluate: Evaluate,
    finding: Finding,
    seed: int,
    until: float | None,
) -> None:
    """Replay pass 1 until a workload is as bad as its worst, then let Hypothesis shrink it.
    At `until` it stops: the smallest workload as bad as the worst so far is kept (pass 1's
    own when the replay had not reached it)."""
    assert finding.verdict is not None
    bar = finding.verdict.starvation - 1e-9
    last: list[tuple[HuntCase, Verdict]] = []

    @_settings(finding.examples, [Phase.generate, Phase.target, Phase.shrink])
    @hypothesis_seed(seed)
    @given(workloads)
    def replay(case: HuntCase) -> None:
        if until is not None and time.monotonic() > until:
            raise _TimeUp
        verdict = evaluate(case)
        target(verdict.starvation, label=_LABEL)
        if verdict.starvation >= bar:
            last.append((case, verdict))
            raise _Failed

    try:
        replay()
    except _Failed:
        case, verdict = last[-1]  # Hypothesis replays the minimal failing example last
        finding.case, finding.verdict, finding.shrunk = case, verdict, True
    except _TimeUp:
        finding.shrink_cut = True
        if last:  # the latest failing example: as bad as the worst, and no larger
            finding.case, finding.verdict, finding.shrunk = *last[-1], True
