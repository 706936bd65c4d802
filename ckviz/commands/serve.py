"""`ckviz serve`: the terminal app in a browser, for a room to watch. Each browser that
connects runs its own app on its own embedded Redis (as `ckviz SCENARIO` does); stopping the
server quits every app, which deletes its keys and stops its server."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence

from ckviz.commands.parsing import CommandParser
from ckviz.commands.redis_options import ENV_REDIS_URL, add_consumers, add_redis_options
from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED
from ckviz.errors import UsageError

LOCAL_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="ckviz serve", description=__doc__)
    p.add_argument(
        "scenario_arg",
        nargs="?",
        metavar="SCENARIO",
        help=f"scenario name or .toml path (default {DEFAULT_SCENARIO})",
    )
    p.add_argument(
        "--discipline",
        action="append",
        default=[],
        metavar="NAME",
        help=f"the discipline the app opens on (default {DEFAULT_DISCIPLINE})",
    )
    p.add_argument("--seed", metavar="SEED", help=f"the seed (default {DEFAULT_SEED})")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, metavar="N", help=f"(default {DEFAULT_PORT})"
    )
    p.add_argument(
        "--host",
        default=LOCAL_HOST,
        metavar="ADDRESS",
        help=f"address to listen on (default {LOCAL_HOST}: this machine only; anyone who can "
        "reach another address can drive the app)",
    )
    p.add_argument(
        "--no-check-invariants",
        dest="check_invariants",
        action="store_false",
        help="skip the queue invariants checked after every round trip (faster)",
    )
    add_consumers(p, None, "consumers taking turns at the dequeue (default: the scenario's)")
    add_redis_options(p)
    p.set_defaults(scenario=[], seeds=None)  # what the app's choice reads beside these
    return p


def app_command(ns: argparse.Namespace, scenario: str, discipline: str, seed: str) -> str:
    """The shell command textual-serve runs for each browser: this ckviz's app, same flags."""
    args = [sys.executable, "-m", "ckviz", scenario, "--discipline", discipline, "--seed", seed]
    if not ns.check_invariants:
        args.append("--no-check-invariants")
    if ns.consumers is not None:
        args += ["--consumers", str(ns.consumers)]
    if ns.redis is not None and ns.redis_url is None:
        args += ["--redis", ns.redis]
    args += ["--prefix", ns.prefix]
    for flag, given in (
        ("--reuse-prefix", ns.reuse_prefix),
        ("--allow-eviction-risk", ns.allow_eviction_risk),
    ):
        args += [flag] * given
    return "exec " + shlex.join(args)  # exec: the app is the process a stop signals


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    if not 0 < ns.port < 65536:
        raise UsageError(f"serve: --port: {ns.port} is outside 1..65535")
    from ckviz.commands.redis_options import server_choice
    from ckviz.headless.plan import check_consumers
    from ckviz.tui.choice import app_choice

    scenario, discipline, seed = app_choice(ns)  # checked here, once, not in each browser
    check_consumers(ns.consumers)
    server_choice(ns)
    if ns.redis_url is not None:  # through the environment: a password stays out of `ps`
        os.environ[ENV_REDIS_URL] = ns.redis_url
    from ckviz.tui.web import serve

    serve(app_command(ns, scenario, discipline, seed), ns.host, ns.port, f"ckviz {scenario}")
    return 0
