"""`ckviz stress`: real concurrency against one server, then the invariant counts."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.commands.redis_options import add_consumers, add_redis_options, server_choice
from ckviz.defaults import MAX_CONSUMERS
from ckviz.disciplines.registry import FACTORIES, FIRST_REDIS_SIDE
from ckviz.errors import ExitCode, UsageError, echo
from ckviz.model.json_text import readable_json
from ckviz.model.results import RedisInfo
from ckviz.outputs.interrupts import INTERRUPTS
from ckviz.outputs.writer import check_output, write_output
from ckviz.stress.ledger import INVARIANTS
from ckviz.stress.ops import SERVER_SIDE
from ckviz.stress.results import stress_results
from ckviz.stress.run import StressReport

DEFAULT_SCENARIO = "stress_reference"
DEFAULT_OUT = "stress.json"
CALL_KINDS = {
    "dequeue": "dequeue (a consumer's trip, acks due)",
    "enqueue": "enqueue (the producer's batch)",
    "watch": "watch (the watcher's read)",
}
MAX_SECONDS = 3600.0


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="ckviz stress", description=__doc__)
    p.add_argument(
        "scenario",
        nargs="?",
        default=DEFAULT_SCENARIO,
        metavar="SCENARIO",
        help=f"scenario name or .toml path (default {DEFAULT_SCENARIO})",
    )
    add_consumers(p, 2, "concurrent consumers (default 2)")
    p.add_argument(
        "--seconds",
        type=float,
        default=10.0,
        metavar="S",
        help="stop producing after S seconds, then drain (default 10)",
    )
    p.add_argument(
        "--discipline",
        default=FIRST_REDIS_SIDE,
        metavar="NAME",
        help=f"one of {', '.join(SERVER_SIDE)} (default {FIRST_REDIS_SIDE})",
    )
    p.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="PATH",
        help=f"results JSON: throughput, latency per call, invariants (default {DEFAULT_OUT})",
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    add_redis_options(p)
    add_quiet(p)
    return p


def stress_discipline(name: str) -> None:
    """Only disciplines whose state lives in Redis can take real concurrency."""
    if name in SERVER_SIDE:
        return
    if name in FACTORIES:
        raise UsageError(
            f"--discipline {name}: refused, it rescores ckIndex from one client's books, so "
            "two concurrent consumers would rewrite the same scores over each other; stress "
            f"runs the disciplines whose state lives in Redis ({', '.join(SERVER_SIDE)})"
        )
    raise UsageError(
        f"--discipline: unknown discipline '{echo(name)}' (stress runs {', '.join(SERVER_SIDE)})"
    )


def _check_args(ns: argparse.Namespace) -> None:
    stress_discipline(ns.discipline)
    if not 1 <= ns.consumers <= MAX_CONSUMERS:
        raise UsageError(f"--consumers: {ns.consumers} is outside 1..{MAX_CONSUMERS}")
    if not 0 < ns.seconds <= MAX_SECONDS:  # also refuses nan
        raise UsageError(f"--seconds: {ns.seconds:g} is outside (0, {MAX_SECONDS:g}]")


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    _check_args(ns)
    out = check_output(ns.out, "--out", ns.force)  # before the run, as --headless checks its own
    from ckviz.inputs import scenario_files
    from ckviz.sim.cell import need_of, open_workspace
    from ckviz.stress.run import run_stress

    scenario = scenario_files.load_any(ns.scenario)
    choice = server_choice(ns)
    # at most two rounds of the scenario wait at once (the producer's bound): two lanes' worth
    with open_workspace(choice, need_of([scenario], lanes=2)) as workspace:
        report = run_stress(
            workspace.client, workspace.namespace, scenario, ns.discipline, ns.consumers, ns.seconds
        )
        server = workspace.server
        redis = RedisInfo(version=server.version, mode=server.mode)
    lines = summary(report)
    for line in [line for line in lines if line.startswith("VIOLATION")] if ns.quiet else lines:
        print(line)
    results = stress_results(report, redis, ns.consumers, ns.seconds)
    with INTERRUPTS.saving():  # a repeated stop does not cut the save short
        write_output(out, readable_json(results.model_dump(mode="json")), rescue=True)
    if report.interrupted:
        print(f"ckviz: interrupted; partial figures written to {out}", file=sys.stderr)
    elif not ns.quiet:
        print(f"results: {out}", file=sys.stderr)
    workspace.raise_left()
    if report.interrupted:
        return int(ExitCode.INTERRUPTED)
    return int(ExitCode.OK if report.ok else ExitCode.CHECK_FAILED)


def summary(report: StressReport) -> list[str]:
    """The printed summary: throughput, per-consumer serves, invariant counts."""
    plan, ledger = report.plan, report.ledger
    calls = sum(report.calls)
    lines = [
        f"ckviz stress: {plan.scenario}, {report.discipline}, {len(report.calls)} consumers, "
        f"max count {plan.max_count}, env limit {plan.env_limit}",
        "real concurrency: figures differ from run to run (not deterministic); "
        "the checks must hold on every run",
        f"served {report.served} of {len(ledger.produced)} runs ({report.rounds} rounds of the "
        f"scenario) in {report.seconds:.2f} s: {report.throughput:,.0f} dequeues/s, "
        f"{calls / report.seconds if report.seconds > 0 else 0:,.0f} calls/s over {calls} calls"
        + (" (production stopped at --seconds)" if report.cut_by_time else ""),
        "",
        f"{'latency (ms)':<40}{'calls':>9}{'p50':>9}{'p99':>9}{'max':>9}",
        *(
            f"{CALL_KINDS.get(kind, kind):<40}{s.calls:>9}{s.p50_ms:>9.3f}{s.p99_ms:>9.3f}"
            f"{s.max_ms:>9.3f}"
            for kind, s in report.latency.items()
        ),
        "",
        f"{'consumer':<10}{'calls':>8}{'serves':>8}",
    ]
    for i, (c, s) in enumerate(zip(report.calls, report.serves, strict=True)):
        lines.append(f"{i:<10}{c:>8}{s:>8}")
    lines += ["", f"{'invariant':<22}{'checks':>9}{'violations':>12}"]
    for name in INVARIANTS:
        lines.append(f"{name:<22}{ledger.checks[name]:>9}{ledger.violations[name]:>12}")
    for name, examples in ledger.examples.items():
        for detail in examples:
            lines.append(f"VIOLATION {name}: {detail}")
    if report.interrupted:
        lines.append("interrupted: the figures so far (served-all and ends-empty not checked)")
    lines.append("all checks held" if report.ok else "ckviz stress: invariants broken")
    return lines
