"""`ckviz [SCENARIO]` (the terminal app) and `ckviz --headless` (the matrix): one parser for
both, since a scenario and a discipline mean the same to each; the flags only the matrix
reads are refused without --headless."""

from __future__ import annotations

import argparse

from ckviz import __version__
from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.commands.redis_options import add_consumers, add_redis_options
from ckviz.defaults import (
    DEFAULT_DISCIPLINE,
    DEFAULT_MATRIX,
    DEFAULT_OUT,
    DEFAULT_SCENARIO,
    DEFAULT_SEED,
)
from ckviz.disciplines.vtime.knobs import KNOBS as VTIME_KNOBS
from ckviz.errors import UsageError


class _Version(argparse.Action):
    """`--version`: ckviz's, then which redis-server it would start and why (looked up only
    when asked: it runs `redis-server --version`)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from ckviz.store.binary import server_line

        print(f"ckviz {__version__}\n{server_line()}")
        parser.exit()


DESCRIPTION = """The terminal app by default: step a scenario through the real dequeue scripts.
--headless runs the benchmark matrix instead (tables on stdout, results JSON)."""


# Flags only --headless reads (dest: flag); given to the app they would be silently ignored.
HEADLESS_ONLY = {
    "seeds": "--seeds",
    "matrix": "--matrix",
    "max_count": "--max-count",
    "clock_limit_ms": "--clock-limit-ms",
    "per_key_cap": "--per-key-cap",
    "total_cap": "--total-cap",
    **{VTIME_KNOBS.treatment_field(k): VTIME_KNOBS.flag(k) for k in VTIME_KNOBS.knobs},
    "out": "--out",
    "force": "--force",
    "jobs": "--jobs",
    "shard": "--shard",
    "check": "--check",
    "junit": "--junit",
    "summary_md": "--summary-md",
    "events": "--events",
    "quiet": "--quiet",  # the app prints nothing to quiet
}


def build_parser() -> argparse.ArgumentParser:
    from ckviz.commands.help_text import epilog

    p = CommandParser(
        prog="ckviz",
        description=DESCRIPTION,
        epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="ckviz's version, and the redis-server it starts: its version, path and why",
    )
    p.add_argument(
        "scenario_arg",
        nargs="?",
        metavar="SCENARIO",
        help=f"scenario name or .toml path (terminal app; default {DEFAULT_SCENARIO})",
    )
    p.add_argument("--headless", action="store_true", help="run the benchmark matrix, no UI")
    p.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME_OR_PATH",
        help="scenario to run (repeatable); default: the matrix's scenarios",
    )
    p.add_argument(
        "--discipline",
        action="append",
        default=[],
        metavar="NAME",
        help="discipline, from the list below (repeatable in --headless); default: the "
        f"matrix's, {DEFAULT_DISCIPLINE} in the app",
    )
    p.add_argument(
        "--seed", metavar="SEED", help=f"one seed (terminal app; default {DEFAULT_SEED})"
    )
    p.add_argument("--seeds", metavar="A,B,C", help="comma-separated seeds for --headless")
    p.add_argument(
        "--compare",
        metavar="A,B",
        help="terminal app: open straight into compare mode, discipline A in the left lane and "
        "B in the right (e.g. sfq,baseline)",
    )
    p.add_argument(
        "--matrix",
        metavar="NAME_OR_PATH",
        default=None,
        help=f"named matrix (scenarios/matrices/*.toml); default: '{DEFAULT_MATRIX}'",
    )
    p.add_argument(
        "--max-count", type=int, default=None, metavar="N", help="runs per dequeue call (default 1)"
    )
    p.add_argument(
        "--clock-limit-ms",
        type=int,
        default=None,
        metavar="MS",
        help="where the logical clock stops, for every millisecond-clock scenario (default: "
        "the matrix's, else each scenario's clock_limit_ms, else a day: 86400000)",
    )
    p.add_argument(
        "--per-key-cap",
        type=int,
        default=None,
        metavar="N",
        help="per-key concurrency cap, enforced by the Lua dequeue",
    )
    p.add_argument(
        "--total-cap",
        type=int,
        default=None,
        metavar="N",
        help="cap on runs held across all keys, enforced by the driver",
    )
    add_knob_flags(p)
    p.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help=f"results JSON path (default {DEFAULT_OUT}; - for stdout); an existing file "
        "needs --force",
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite an existing --out (or --record) file"
    )
    p.add_argument(
        "--record",
        metavar="FILE.cast",
        help="terminal app: write the session as an asciicast v2 file (ckviz replay, asciinema)",
    )
    p.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="run only the K-th of N deterministic slices of the matrix (join with ckviz merge)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="cells run at once, taking turns in one worker process per core "
        "(default: 3 x cores, at most 16)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="evaluate the scenarios' [[expect]] rules; exit 1 if any fails",
    )
    p.add_argument(
        "--junit",
        metavar="FILE",
        help="write the [[expect]] rules' outcomes as JUnit XML (implies --check)",
    )
    p.add_argument(
        "--summary-md",
        metavar="FILE",
        help="write a Markdown summary (as `ckviz report --markdown`); "
        "appended to $GITHUB_STEP_SUMMARY too when that is set",
    )
    p.add_argument(
        "--events",
        metavar="FILE",
        help="write every dequeue of every cell as JSON Lines (- for stdout); never in the "
        "results file",
    )
    p.add_argument(
        "--no-check-invariants",
        dest="check_invariants",
        action="store_false",
        help="skip the queue invariants checked after every round trip (faster)",
    )
    p.add_argument(
        "--allow-trace-outside",
        action="store_true",
        help="let a scenario's [trace] path lead outside the scenario's folder",
    )
    add_consumers(
        p, None, "consumers taking turns at the dequeue (default: the scenario's, else 1)", True
    )
    add_redis_options(p)
    add_quiet(p)
    return p


def run(ns: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ckviz.inputs.scenario_files import TRACE_PATHS

    TRACE_PATHS.outside = ns.allow_trace_outside
    if ns.headless:
        from ckviz.commands.headless import run_headless

        if ns.record is not None:
            raise UsageError("--record is for the terminal app (--headless draws no screen)")
        if ns.compare is not None:
            raise UsageError("--compare is for the terminal app; --headless runs every discipline")
        return run_headless(ns)
    reject_headless_only(parser, ns)
    from ckviz.commands.app import run_app_command

    return run_app_command(ns)


def reject_headless_only(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> None:
    """The app ignores the matrix's flags: given without --headless they are a mistake."""
    default = parser.get_default
    given = [flag for dest, flag in HEADLESS_ONLY.items() if getattr(ns, dest) != default(dest)]
    if ns.record is not None and "--force" in given:
        given.remove("--force")  # it is also --record's
    if given:
        raise UsageError(
            f"{given[0]} is for --headless (the terminal app ignores it); add --headless to run "
            "the matrix, or drop it to open the app"
        )


def add_knob_flags(p: argparse.ArgumentParser) -> None:
    """A flag per knob a discipline declares (`--vtime-window` sets a treatment's
    `vtime_window`, a scenario's `[vtime] window`)."""
    for knob in VTIME_KNOBS.knobs:
        p.add_argument(
            VTIME_KNOBS.flag(knob),
            type=knob.kind,
            default=None,
            metavar=knob.metavar,
            help=f"{VTIME_KNOBS.family}: {knob.help} (default {knob.shown_default()})",
        )
