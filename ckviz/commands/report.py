"""`ckviz report RESULTS.json... [--out report.html] [--markdown report.md]`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.errors import UsageError
from ckviz.headless.output import check_out

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
    p.add_argument("--markdown", metavar="PATH", help="Markdown report")
    add_quiet(p)
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    html_out = ns.out or (None if ns.markdown else DEFAULT_HTML)
    targets = [Path(t) for t in (html_out, ns.markdown) if t]
    for target in targets:
        check_output_path(target, "--out" if str(target) == html_out else "--markdown")
    from ckviz.report.markdown import render_markdown
    from ckviz.report.sources import load_sources, redis_versions_note
    from ckviz.report.views import scenario_views

    sources = load_sources(ns.results)
    note = redis_versions_note(sources)
    if note:
        print(f"ckviz: note: {note}", file=sys.stderr)
    scenarios = scenario_views(sources)
    if html_out:
        from ckviz.report.html import render_html

        write_text(Path(html_out), render_html(sources, scenarios))
        _note(f"report: {html_out}", ns.quiet)
    if ns.markdown:
        write_text(Path(ns.markdown), render_markdown(sources, scenarios))
        _note(f"report: {ns.markdown}", ns.quiet)
    return 0


def _note(line: str, quiet: bool) -> None:
    if not quiet:
        print(line, file=sys.stderr)


def check_output_path(path: Path, flag: str) -> None:
    if path.is_dir():
        raise UsageError(f"{flag}: {path} is a directory; give a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{flag}: {parent} is not a directory")
    # and writable, found before the files are read and the report drawn (overwriting as
    # before: a report is made to be made again)
    check_out(str(path), force=True, flag=flag)


def write_text(path: Path, text: str) -> None:
    """Whole or not at all: a report is never left half-written."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None
