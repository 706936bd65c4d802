"""`ckviz serve`: the terminal app in a browser, for a room to watch. Each browser that
connects runs its own app on its own embedded Redis (as `ckviz SCENARIO` does); stopping the
server quits every app, which deletes its keys and stops its server.
Only the page's own origin, on the address served, with the token in the URL serve prints,
opens a session; at most --max-sessions at once."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence

from ckviz.commands.parsing import CommandParser
from ckviz.commands.redis_options import (
    ENV_REDIS_URL,
    URL_FROM_FLAG,
    add_consumers,
    add_redis_options,
)
from ckviz.defaults import DEFAULT_DISCIPLINE, DEFAULT_SCENARIO, DEFAULT_SEED
from ckviz.errors import ExitCode, UsageError

LOCAL_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_SESSIONS = 4  # each runs an app and, by default, a redis-server of its own
MAX_SESSIONS = 64
DEFAULT_FONT_SIZE = 16  # textual-serve's; 28 or so reads from the back of a room
FONT_SIZES = (6, 96)


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
        help=f"address to listen on (default {LOCAL_HOST}: this machine only; on another, anyone "
        "who can reach it and has the printed URL can drive the app)",
    )
    p.add_argument(
        "--max-sessions",
        type=int,
        default=DEFAULT_SESSIONS,
        metavar="N",
        help=f"browser sessions at once, each an app and a Redis (default {DEFAULT_SESSIONS})",
    )
    p.add_argument(
        "--font-size",
        type=int,
        default=DEFAULT_FONT_SIZE,
        metavar="PX",
        help=f"the page's font size in pixels (default {DEFAULT_FONT_SIZE}; ~28 for a projector)",
    )
    p.add_argument(
        "--no-check-invariants",
        dest="check_invariants",
        action="store_false",
        help="skip the queue invariants checked after every round trip (faster)",
    )
    add_consumers(
        p, None, "consumers taking turns at the dequeue (default: the scenario's)", mix=True
    )
    add_redis_options(p)
    p.set_defaults(
        scenario=[], seeds=None, compare=None
    )  # what the app's choice reads beside these
    return p


def app_command(ns: argparse.Namespace, scenario: str, discipline: str, seed: str) -> str:
    """The shell command textual-serve runs for each browser: this ckviz's app, same flags."""
    chosen = [] if isinstance(ns.consumers, str) else ["--discipline", discipline]  # a mix names
    args = [sys.executable, "-m", "ckviz", scenario, *chosen, "--seed", seed]  # its own
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


def served_choice(ns: argparse.Namespace) -> tuple[str, str, str]:
    """Scenario, discipline and seed, checked as the app checks them (once, here, not in each
    browser); `ns.consumers` left in the form the app is given."""
    from ckviz.commands.app import consumers_choice, mix_discipline
    from ckviz.model.lineup import flag_consumers
    from ckviz.player.choice import app_choice

    consumers, mix = consumers_choice(ns)
    ns.consumers = flag_consumers(consumers)  # each browser's app reads the flag in its form
    scenario, discipline, seed = app_choice(ns)
    return scenario, mix_discipline(mix) if mix is not None else discipline, seed


def check_limits(ns: argparse.Namespace) -> None:
    if not 0 < ns.port < 65536:
        raise UsageError(f"serve: --port: {ns.port} is outside 1..65535")
    if not 1 <= ns.max_sessions <= MAX_SESSIONS:
        raise UsageError(f"serve: --max-sessions: {ns.max_sessions} is outside 1..{MAX_SESSIONS}")
    low, high = FONT_SIZES
    if not low <= ns.font_size <= high:
        raise UsageError(f"serve: --font-size: {ns.font_size} is outside {low}..{high}")


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    check_limits(ns)
    from ckviz.commands.redis_options import server_choice

    scenario, discipline, seed = served_choice(ns)
    server_choice(ns)
    if ns.redis_url is not None:  # through the environment: a password stays out of `ps`
        os.environ[ENV_REDIS_URL] = ns.redis_url
        os.environ[URL_FROM_FLAG] = "1"
    from ckviz.commands.app import SERVE_PID

    os.environ[SERVE_PID] = str(os.getpid())  # each app dies with this server (die_with_serve)
    from ckviz.tui.web import serve
    from ckviz.tui.web_access import Access

    access = Access(ns.host, ns.port)
    if access.everywhere:
        print(
            f"ckviz serve: warning: --host {ns.host} serves the app on every address of this "
            "machine: anyone who can reach it and has the URL's token can watch and drive it",
            file=sys.stderr,
            flush=True,
        )
    command = app_command(ns, scenario, discipline, seed)
    stopped_by = serve(command, access, f"ckviz {scenario}", ns.max_sessions, ns.font_size)
    return int(ExitCode.INTERRUPTED) if stopped_by is not None else 0
