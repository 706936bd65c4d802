"""`ckviz report RESULTS.json... [--out report.html] [--markdown report.md]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.outputs.writer import check_output, write_output

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
    add_quiet(p)
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    html_out = ns.out or (None if ns.markdown else DEFAULT_HTML)
    html = check_output(html_out, "--out", ns.force) if html_out else None
    markdown = check_output(ns.markdown, "--markdown", ns.force) if ns.markdown else None
    from ckviz.report.markdown import render_markdown
    from ckviz.report.sources import load_sources, redis_versions_note
    from ckviz.report.views import scenario_views

    sources = load_sources(ns.results)
    note = redis_versions_note(sources)
    if note:
        print(f"ckviz: note: {note}", file=sys.stderr)
    scenarios = scenario_views(sources)
    if html is not None:
        from ckviz.report.html import render_html

        write_output(html, render_html(sources, scenarios))
        _note(f"report: {html}", ns.quiet)
    if markdown is not None:
        write_output(markdown, render_markdown(sources, scenarios))
        _note(f"report: {markdown}", ns.quiet)
    return 0


def _note(line: str, quiet: bool) -> None:
    if not quiet:
        print(line, file=sys.stderr)
