"""`ckviz check RESULTS.json... [--scenario PATH]`: the scenarios' [[expect]] rules, after the
fact, e.g. on the file `ckviz merge` joined from --shard slices (a slice cannot --check)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ckviz.commands.parsing import CommandParser
from ckviz.commands.report import add_check_flags, checked
from ckviz.errors import ExitCode


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="ckviz check",
        description="Evaluate the scenarios' [[expect]] rules against results files, e.g. one "
        "that ckviz merge joined from --shard slices (which cannot --check alone). Exit 1 if "
        "any rule fails.",
    )
    p.add_argument("results", nargs="+", metavar="RESULTS.json", help="results of --headless")
    add_check_flags(p)
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(["--check", *argv])
    from ckviz.report.sources import load_sources

    failed = checked(load_sources(ns.results), ns.scenario, "check")
    return int(ExitCode.CHECK_FAILED) if failed else 0
