"""`ckviz hunt`: search for the workload that treats a key worst under a discipline."""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable, Sequence

import redis

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.commands.redis_options import add_redis_options, server_choice
from ckviz.disciplines.registry import DEFAULT_DISCIPLINES, FACTORIES
from ckviz.errors import ExitCode, UsageError
from ckviz.hunt.found import WORKLOAD_SEED, describe, reproduce_command, scenario_text
from ckviz.hunt.objective import Verdict, evaluate
from ckviz.hunt.search import Finding, Interrupted, hunt
from ckviz.hunt.space import HuntCase, largest_workload, ms_workloads, step_workloads
from ckviz.model.clock import STEPS
from ckviz.outputs.writer import check_output, write_output
from ckviz.sim.clocks import disciplines_on

DEFAULT_EXAMPLES = 300
DEFAULT_SECONDS = 120.0
# --seconds bounds the whole command: exploring may use this share of the time left once the
# server is up, shrinking runs until this share has passed, the comparison table takes the rest
EXPLORE_SHARE = 0.5
SHRINK_SHARE = 0.75
PROGRESS_EVERY_S = 2.0
Runner = Callable[[HuntCase, str], Verdict]


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="ckviz hunt", description=__doc__)
    p.add_argument("--discipline", required=True, metavar="NAME", help="discipline to attack")
    p.add_argument(
        "--examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"workloads to try (default {DEFAULT_EXAMPLES}; fixes the result)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"time for the whole command, shrinking and the comparison included (default "
        f"{DEFAULT_SECONDS:g}); a cut hunt says so",
    )
    p.add_argument(
        "--harness",
        choices=["steps", "ms"],
        default=None,
        help="steps (the call-by-call harness of the micro-benchmark) or ms (logical "
        "milliseconds); "
        "default: ms where the discipline runs there, else steps",
    )
    p.add_argument("--keys", type=int, default=5, metavar="K", help="at most K keys (2..12)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="search seed (default 0)")
    p.add_argument("--out", default="found.toml", metavar="PATH", help="scenario file to write")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    add_redis_options(p)
    add_quiet(p)
    return p


def main(argv: Sequence[str]) -> int:
    started = time.monotonic()
    ns = build_parser().parse_args(list(argv))
    _check_args(ns)
    ns.deadline = started + ns.seconds
    from ckviz.sim.cell import need_of, open_workspace

    choice = server_choice(ns)
    need = need_of([largest_workload(ns.harness, ns.keys)], lanes=1)
    with open_workspace(choice, need) as workspace:
        code = _hunt_on(workspace.client, workspace.namespace, ns)
    workspace.raise_left()
    return code


def _disciplines(harness: str) -> tuple[str, ...]:
    return disciplines_on(STEPS) if harness == "steps" else DEFAULT_DISCIPLINES


def _check_args(ns: argparse.Namespace) -> None:
    if ns.harness is None:  # a discipline in Redis hunts in steps unless --harness ms asks
        native = ns.discipline in disciplines_on(STEPS) and ns.discipline != "baseline"
        ns.harness = "ms" if ns.discipline in FACTORIES and not native else "steps"
    known = _disciplines(ns.harness)
    if ns.discipline not in known:
        raise UsageError(
            f"--discipline: '{ns.discipline}' does not run in the {ns.harness} harness "
            f"(there: {', '.join(known)})"
        )
    if not 2 <= ns.keys <= 12:
        raise UsageError(f"--keys: {ns.keys} is outside 2..12")
    if ns.examples < 1:
        raise UsageError(f"--examples: {ns.examples} is not a positive number")
    if not (math.isfinite(ns.seconds) and ns.seconds > 0):
        raise UsageError(f"--seconds: expected a positive number of seconds, got {ns.seconds}")
    ns.found = check_output(ns.out, "--out", ns.force)  # before the search, not after it


def _hunt_on(client: redis.Redis, namespace: str, ns: argparse.Namespace) -> int:
    cells = itertools.count()

    def run(case: HuntCase, discipline: str = ns.discipline) -> Verdict:
        return evaluate(client, f"{namespace}h{next(cells)}:", case, discipline)

    interrupted = False
    # the time left, shared: most to explore, then shrinking, then the comparison table
    now = time.monotonic()
    left = max(0.0, ns.deadline - now)
    say = _quiet_say if ns.quiet else _say
    try:
        space = (
            ms_workloads(ns.keys, WORKLOAD_SEED) if ns.harness == "ms" else step_workloads(ns.keys)
        )
        finding = hunt(
            space,
            run,
            examples=ns.examples,
            seconds=EXPLORE_SHARE * left,
            seed=ns.seed,
            progress=_quiet if ns.quiet else Progress(ns.deadline, ns.seconds),
            shrink_until=now + SHRINK_SHARE * left,
            announce=say,
        )
    except Interrupted as stop:
        finding, interrupted = stop.finding, True
        print("\nckviz hunt: interrupted; reporting the worst found so far", file=sys.stderr)
    return _report(finding, ns, run, interrupted)


def _quiet(examples: int, worst: Verdict | None) -> None:
    return None


def _say(what: str) -> None:
    print(f"hunt: {what}", file=sys.stderr)


def _quiet_say(what: str) -> None:
    return None


class Progress:
    """A line on stderr for the first workload, then at most every PROGRESS_EVERY_S."""

    def __init__(self, deadline: float, seconds: float) -> None:
        self.deadline, self.seconds, self.last = deadline, seconds, 0.0

    def __call__(self, examples: int, worst: Verdict | None) -> None:
        now = time.monotonic()
        if examples != 1 and now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        key = (worst.worst_key or "no key judged") if worst else ""
        shown = f"{worst.worst_share:.3f} ({key})" if worst else "n/a"
        spent = self.seconds - (self.deadline - now)
        print(
            f"hunt: exploring: {examples} workloads, {spent:.0f} s of {self.seconds:g} s, "
            f"lowest fair-share attainment {shown}",
            file=sys.stderr,
        )


def _report(finding: Finding, ns: argparse.Namespace, run: Runner, interrupted: bool) -> int:
    command = reproduce_command(ns.out, ns.harness, ns.discipline)
    if finding.bug is not None:
        print(f"ckviz hunt: BUG: {finding.bug}")
        if finding.case is not None:
            bug_verdict = Verdict(ns.discipline, 0.0, None, None, 0.0)
            write_output(ns.found, scenario_text(finding.case, bug_verdict, command))
            print(f"the shrunk workload that breaks it is in {ns.found}; reproduce: {command}")
        return int(ExitCode.CHECK_FAILED)
    if finding.case is None or finding.verdict is None:
        if interrupted:
            print("ckviz hunt: no workload was tried", file=sys.stderr)
            return int(ExitCode.INTERRUPTED)
        print(
            f"ckviz: error: hunt: no workload was tried within --seconds {ns.seconds:g}; "
            "give it more time",
            file=sys.stderr,
        )
        return int(ExitCode.CHECK_FAILED)
    cut = f" (cut by --seconds: rerun with --examples {finding.examples} to repeat it)"
    print(
        f"{finding.examples} workloads tried{cut if finding.cut_by_time else ''}; "
        f"worst: {describe(finding.verdict)}"
        f"{' (shrunk)' if finding.shrunk else ''}"
        f"{' (shrinking cut by --seconds)' if finding.shrink_cut else ''}"
    )
    text = scenario_text(finding.case, finding.verdict, command)
    write_output(ns.found, text)
    print(f"\n{text}")  # the workload itself, as a file
    print(f"written to {ns.found}; reproduce: {command}")
    say = _quiet_say if ns.quiet else _say
    _compare(finding.case, run, _disciplines(ns.harness), ns.deadline, say)
    return int(ExitCode.INTERRUPTED if interrupted else ExitCode.OK)


def _compare(
    case: HuntCase,
    run: Runner,
    disciplines: tuple[str, ...],
    deadline: float,
    say: Callable[[str], None],
) -> None:
    """The same workload under every discipline of its harness: a small table, cut at the
    deadline (the disciplines not run are named)."""
    say(f"comparing it under {len(disciplines)} disciplines")
    header = f"{'discipline':<16} {'attainment':>11} {'contention':>10}"
    print(f"\n{header}  most under-served key (mean wait)")
    unit = case.scenario.clock.name
    for i, name in enumerate(disciplines):
        if time.monotonic() > deadline:
            print(f"(cut by --seconds: {', '.join(disciplines[i:])} not run)")
            return
        v = run(case, name)
        served = v.worst_key_mean_wait_ms
        wait = f"{served:.0f} {unit}" if served is not None else "never served"
        key = f"{v.worst_key} ({wait})" if v.worst_key else "no key judged"
        print(f"{name:<16} {v.worst_share:>11.3f} {v.contention_worst:>10.3f}  {key}")
