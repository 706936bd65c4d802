"""`ckviz report RESULTS.json... [--out report.html] [--markdown report.md]`, comparisons a CI
can gate on (`--fail-if-worse PCT`), and `--check` on any results file (`ckviz check` too)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.errors import ExitCode, UsageError
from ckviz.model.results import CheckResult
from ckviz.outputs.writer import check_output, write_output

if TYPE_CHECKING:
    from ckviz.report.gate import Gate
    from ckviz.report.sources import Source
    from ckviz.report.views import ScenarioView

DEFAULT_HTML = "report.html"


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="ckviz report",
        description="Figures, tables and findings from ckviz results files, as one "
        "self-contained HTML page (opens offline) and/or Markdown (fits a GitHub job summary). "
        "Several files are shown side by side, e.g. two commits.",
    )
    p.add_argument("results", nargs="+", metavar="RESULTS.json", help="results of --headless")
    p.add_argument(
        "--out",
        metavar="PATH",
        help=f"HTML report (default {DEFAULT_HTML} unless only --markdown is given)",
    )
    p.add_argument("--markdown", metavar="PATH", help="Markdown report (- for stdout)")
    p.add_argument("--force", action="store_true", help="overwrite existing report files")
    p.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="compare files whose scenarios, seeds, treatments or scenario contents differ "
        "(refused otherwise, exit 2); the report says they differ",
    )
    p.add_argument(
        "--fail-if-worse",
        type=_percent,
        nargs="?",
        const=5.0,
        metavar="PCT",
        help="exit 1 when a fairness figure (attainment, worst share/weight, Jain) or the light "
        "key's mean wait of a later file is worse than the first file's by more than PCT %% "
        "(5 when given bare, after the files), or is not a finite number, on any scenario; "
        "said first in every output, as ::error lines under GitHub Actions, and appended to "
        "$GITHUB_STEP_SUMMARY when that is set",
    )
    p.add_argument(
        "--min-effect",
        type=_attainment_step,
        default=None,
        metavar="A",
        help="the least difference in fair-share attainment a verdict calls fairer or less "
        "fair, its 95%% interval clear of 0 too (default 0.05; docs/fairness.md)",
    )
    add_check_flags(p)
    add_quiet(p)
    return p


def add_check_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--check",
        action="store_true",
        help="evaluate the scenarios' [[expect]] rules against each file (a merged sharded "
        "file too); exit 1 if any fails",
    )
    p.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME_OR_PATH",
        help="with --check: the scenario file whose rules apply (default: the bundled one of "
        "the same name); repeatable",
    )


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"give a percentage of 0 or more, not {text}")
    return value


def _attainment_step(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"give an attainment from 0 to 1, not {text}")
    return value


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    html_out = ns.out or (None if ns.markdown else DEFAULT_HTML)
    html = check_output(html_out, "--out", ns.force) if html_out else None
    markdown = check_output(ns.markdown, "--markdown", ns.force) if ns.markdown else None
    from ckviz.fairness_intervals import MIN_EFFECT
    from ckviz.report.markdown import render_markdown
    from ckviz.report.sources import load_sources, redis_versions_note
    from ckviz.report.views import scenario_views

    sources = load_sources(ns.results)
    differ = _comparable(sources, ns.allow_mismatch)
    effect = MIN_EFFECT if ns.min_effect is None else ns.min_effect
    scenarios = scenario_views(sources, effect)
    gated = _gate(scenarios, ns.fail_if_worse)  # said first, before any other line
    note = redis_versions_note(sources)
    if note:
        print(f"ckviz: note: {note}", file=sys.stderr)
    failed = checked(sources, ns.scenario, "report --check") if ns.check else False
    if html is not None:
        from ckviz.report.html import render_html

        write_output(html, render_html(sources, scenarios, differ, gated))
        _note(f"report: {html}", ns.quiet)
    text = None
    if markdown is not None or (gated is not None and summary_file() is not None):
        text = render_markdown(sources, scenarios, differ, gated)
    if markdown is not None and text is not None:
        write_output(markdown, text)
        _note(f"report: {markdown}", ns.quiet)
    if gated is not None and text is not None:
        _to_job_summary(text, ns.quiet)
    worse = gated is not None and gated.failed
    return int(ExitCode.CHECK_FAILED) if failed or worse else 0


def _comparable(sources: list[Source], allowed: bool) -> list[str]:
    """Refuse files that ran different things (exit 2, naming the first difference), unless
    --allow-mismatch: then every difference, for the report to say. A treatment label that
    runs another discipline or other caps in a later file is refused whatever the flags: its
    figures are another treatment's."""
    from ckviz.report.compare import mismatches, relabelled

    moved = [line for later in sources[1:] for line in relabelled(sources[0], later)]
    if moved:
        more = f" (and {len(moved) - 1} more)" if len(moved) > 1 else ""
        raise UsageError(
            f"report: a treatment label means another treatment in a later file: {moved[0]}"
            f"{more}; give it another label"
        )
    found = [line for later in sources[1:] for line in mismatches(sources[0], later)]
    if found and not allowed:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise UsageError(
            f"report: the files ran different things, so their figures are not comparable: "
            f"{found[0]}{more}; --allow-mismatch compares them anyway"
        )
    return found


def _gate(scenarios: list[ScenarioView], limit: float | None) -> Gate | None:
    """--fail-if-worse: the gate's outcome first on stderr, then each figure that failed it,
    and under GitHub Actions an ::error line each on stdout (--quiet or not)."""
    if limit is None:
        return None
    from ckviz.report.gate import gate

    outcome = gate(scenarios, limit)
    print(f"ckviz: {outcome.headline}", file=sys.stderr)
    for r in outcome.failures[1:]:
        print(f"  worse by more than {limit:g}%: {r}", file=sys.stderr)
    for line in outcome.annotations():
        print(line)
    return outcome


def summary_file() -> Path | None:
    """The job summary the gate's Markdown is appended to, when GITHUB_STEP_SUMMARY is set."""
    from ckviz.headless.ci_outputs import ENV_STEP_SUMMARY, summary_path

    where = os.environ.get(ENV_STEP_SUMMARY)
    return summary_path(where) if where else None


def _to_job_summary(text: str, quiet: bool) -> None:
    from ckviz.headless.ci_outputs import ENV_STEP_SUMMARY
    from ckviz.outputs.writer import append_output

    path = summary_file()
    if path is not None:
        append_output(path, text, ENV_STEP_SUMMARY)
        _note(f"report: appended to {ENV_STEP_SUMMARY}", quiet)


def checked(sources: list[Source], scenario_args: list[str], command: str) -> bool:
    """--check: each file's [[expect]] rules evaluated, printed, and kept for the report (and
    CI outputs); True if any failed. `command` names the command in error lines."""
    from ckviz.headless.checks import rules_for

    failed = False
    for source in sources:
        results = source.results
        results.checks = rules_for(results, scenario_args, f"{command}: {source.path}")
        print_check_lines(source.label if len(sources) > 1 else None, results.checks)
        failed |= any(c.status == "failed" for c in results.checks)
    return failed


def print_check_lines(label: str | None, checks: list[CheckResult]) -> None:
    from rich.console import Console

    from ckviz.headless.report import print_checks

    if label is not None:
        print(f"{label}:")
    print_checks(checks, Console(highlight=False))


def _note(line: str, quiet: bool) -> None:
    if not quiet:
        print(line, file=sys.stderr)
