"""The `ckviz` command: the terminal app by default, `--headless` for the matrix, `validate`,
`hunt`, `stress` (real concurrency), `report` (figures and findings from results files)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from ckviz import __version__
from ckviz.defaults import (
    DEFAULT_DISCIPLINE,
    DEFAULT_MATRIX,
    DEFAULT_OUT,
    DEFAULT_SCENARIO,
    DEFAULT_SEED,
    ROOT_PREFIX,
)
from ckviz.errors import CkvizError, ExitCode, KeysLeft, OneLineParser, UsageError, one_line

ENV_REDIS_URL = "CKVIZ_REDIS_URL"


# Flags only --headless reads (dest: flag); given to the app they would be silently ignored.
HEADLESS_ONLY = {
    "seeds": "--seeds",
    "matrix": "--matrix",
    "max_count": "--max-count",
    "per_key_cap": "--per-key-cap",
    "total_cap": "--total-cap",
    "vtime_quantum": "--vtime-quantum",
    "vtime_window": "--vtime-window",
    "vtime_arrival_cap": "--vtime-arrival-cap",
    "out": "--out",
    "force": "--force",
    "jobs": "--jobs",
    "shard": "--shard",
    "check": "--check",
    "junit": "--junit",
    "summary_md": "--summary-md",
}


def build_parser() -> argparse.ArgumentParser:
    from ckviz.commands.help_text import epilog

    p = OneLineParser(
        prog="ckviz",
        description=__doc__,
        epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ckviz {__version__}")
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
        help=(
            "discipline, one of those listed below (repeatable in --headless); default: the "
            f"matrix's (--headless) / {DEFAULT_DISCIPLINE} (the app)"
        ),
    )
    p.add_argument(
        "--seed", metavar="SEED", help=f"one seed (terminal app; default {DEFAULT_SEED})"
    )
    p.add_argument("--seeds", metavar="A,B,C", help="comma-separated seeds for --headless")
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
        "--consumers",
        type=int,
        default=None,
        metavar="N",
        help="consumers taking turns at the dequeue, each on its own connection (default: "
        "the scenario's, else 1)",
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
    p.add_argument(
        "--vtime-quantum",
        type=float,
        default=None,
        metavar="Q",
        help="vtime: tag advance per serve (default 1)",
    )
    p.add_argument(
        "--vtime-window",
        type=int,
        default=None,
        metavar="N",
        help="vtime: scan window multiplier, window = N x batch (default 3)",
    )
    p.add_argument(
        "--vtime-arrival-cap",
        type=float,
        default=None,
        metavar="M",
        help="vtime: a new key registers at most M x quantum above the floor (default 2^32)",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="PATH",
        help=f"results JSON path (default {DEFAULT_OUT}); an existing file needs --force",
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
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
        help="worker processes for independent cells (default: 2 x cores + 1, at most 16)",
    )
    p.add_argument(
        "--redis-url",
        default=None,
        metavar="URL",
        help=f"use an existing Redis (env {ENV_REDIS_URL}); default: embedded",
    )
    p.add_argument(
        "--redis",
        choices=["embedded", "docker"],
        default="embedded",
        help="where the server comes from when no URL is given",
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
        "--no-check-invariants",
        dest="check_invariants",
        action="store_false",
        help="skip the queue invariants checked after every round trip (faster)",
    )
    p.add_argument(
        "--prefix",
        default=ROOT_PREFIX,
        metavar="ROOT",
        help=f"root of ckviz's key namespace on the server (default '{ROOT_PREFIX}')",
    )
    p.add_argument(
        "--allow-eviction-risk",
        action="store_true",
        help="run on a server whose eviction policy and headroom could evict others' keys",
    )
    p.add_argument(
        "--reuse-prefix",
        action="store_true",
        help="run even if the server already holds keys under the --prefix root",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)  # a closed terminal or dropped SSH: same as SIGTERM
    unusable = unwritable_streams()
    if unusable:
        return unusable
    try:
        if args[:1] == ["validate"]:
            from ckviz.commands.validate import validate_files

            return validate_files(args[1:])
        if args[:1] == ["stress"]:
            from ckviz.commands.stress import stress_main

            return stress_main(args[1:])
        if args[:1] == ["hunt"]:
            from ckviz.commands.hunt import hunt_main

            return hunt_main(args[1:])
        if args[:1] == ["report"]:
            from ckviz.commands.report import report_main

            return report_main(args[1:])
        if args[:1] == ["merge"]:
            from ckviz.commands.merge import merge_main

            return merge_main(args[1:])
        parser = build_parser()
        ns = parser.parse_args(args)
        if ns.headless:
            return _headless(ns)
        _reject_headless_only(parser, ns)
        return _app(ns)
    except CkvizError as exc:
        print(f"ckviz: error: {one_line(str(exc))}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("ckviz: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)


def _reject_headless_only(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> None:
    """The app ignores the matrix's flags: given without --headless they are a mistake."""
    given = [
        flag
        for dest, flag in HEADLESS_ONLY.items()
        if getattr(ns, dest) != parser.get_default(dest)
    ]
    if given:
        raise UsageError(
            f"{given[0]} is for --headless (the terminal app ignores it); add --headless to run "
            "the matrix, or drop it to open the app"
        )


def unwritable_streams() -> int:
    """Exit 2 with one line if stdout or stderr cannot be written (e.g. /dev/full), before
    any work whose report would be lost; 0 if both are fine. A zero-byte write surfaces it."""
    broken = []
    for name, fd in (("stdout", 1), ("stderr", 2)):
        try:
            os.write(fd, b"")
        except OSError as exc:
            broken.append(f"{name} ({exc.strerror})")
            _silence(fd)
    if not broken:
        return 0
    print(f"ckviz: error: cannot write to {' or '.join(broken)}", file=sys.stderr)
    return int(ExitCode.USAGE)


def _silence(fd: int) -> None:
    """Point a broken stream at /dev/null, so the interpreter's last flush cannot fail."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def redis_url(ns: argparse.Namespace) -> tuple[str | None, str]:
    """The URL to use and where it came from, for error lines: the flag wins over the env."""
    if ns.redis_url is not None:
        return ns.redis_url, "--redis-url"
    return os.environ.get(ENV_REDIS_URL) or None, ENV_REDIS_URL


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _headless(ns: argparse.Namespace) -> int:
    from rich.console import Console

    from ckviz.headless.matrix import run_matrix, stdout_console
    from ckviz.headless.plan import plan_from_args
    from ckviz.store.server import open_server

    plan = plan_from_args(ns)
    with open_server(ns.redis, *redis_url(ns), allow_cluster=True) as server:
        return run_matrix(plan, server, stdout_console(), Console(stderr=True))


def _app(ns: argparse.Namespace) -> int:
    from ckviz.headless.plan import check_consumers
    from ckviz.inputs import scenario_files
    from ckviz.sim.namespace import check_root, claim_namespace, sweep_namespace
    from ckviz.store.preflight import Footprint, check_eviction
    from ckviz.store.server import open_server
    from ckviz.tui.choice import app_choice

    scenario, discipline, seed = app_choice(ns)  # validated before any server starts
    consumers = check_consumers(ns.consumers)
    loaded = scenario_files.load_any(scenario)
    root = check_root(ns.prefix)
    from ckviz.tui.launch import run_app

    with open_server(ns.redis, *redis_url(ns)) as server:
        client = server.client()
        if server.mode == "url" and not ns.allow_eviction_risk:
            lanes = Footprint(2 * loaded.total_runs, 2 * len(loaded.weights()))  # compare mode
            check_eviction(client, lanes, f"{server.source} {server.shown_url}")
        namespace = claim_namespace(client, root, ns.reuse_prefix)
        try:
            code = run_app(
                server,
                scenario,
                discipline,
                seed,
                namespace=namespace,
                check_invariants=ns.check_invariants,
                consumers=consumers,
            )
        finally:
            left = sweep_namespace(client, namespace)  # the app deletes its keys; the net
            client.close()
    if left and server.mode != "embedded":
        raise KeysLeft(left)
    return code


def run() -> NoReturn:
    sys.exit(main())


if __name__ == "__main__":
    run()
