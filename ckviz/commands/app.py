"""`ckviz [SCENARIO]`: the terminal app, on a workspace of its own (it deletes its keys as it
goes; the workspace's sweep is the net). Textual is imported only once the app opens."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ckviz.errors import UsageError
from ckviz.outputs.writer import STDOUT_NAMES, Output, check_output

if TYPE_CHECKING:  # the first frame loads the mix's model only when --consumers names one
    from ckviz.model.lineup import Lineup

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"  # what textual-serve runs the app under
SERVE_PID = "CKVIZ_SERVE_PID"  # set by `ckviz serve` for the apps it starts: whom they die with


def run_app_command(ns: argparse.Namespace) -> int:
    from ckviz.commands.redis_options import redis_url
    from ckviz.store.server import server_started_early

    die_with_serve()
    # an embedded server starts while the app's modules load (the first frame waits for both)
    with server_started_early(ns.redis or "embedded", redis_url(ns)[0]):
        return _run_app(ns)


def die_with_serve() -> None:
    """Served, the app quits when `ckviz serve` dies, even killed hard: its stdin (the
    server's pipe) then only reads EOF, which Textual's web driver never takes as a quit, so
    the app and its embedded server would run on with nobody to stop them. Linux sends the
    SIGTERM the app takes as `q` (it deletes its keys and stops its server)."""
    served_by = os.environ.get(SERVE_PID)
    if not (served_by or "").isdigit() or os.environ.get("TEXTUAL_DRIVER") != WEB_DRIVER:
        return
    from ckviz.store.launch import die_with_parent

    die_with_parent(int(served_by or 0))


def _run_app(ns: argparse.Namespace) -> int:
    from ckviz.commands.redis_options import server_choice
    from ckviz.inputs import scenario_files
    from ckviz.player.choice import app_choice, compare_choice
    from ckviz.sim.cell import need_of, open_workspace

    consumers, mix = consumers_choice(ns)
    lanes = compare_choice(ns)  # `--compare A,B`: straight into compare mode
    if mix is not None and lanes is not None:
        raise UsageError("--consumers: a mix runs in one lane; drop --compare")
    if lanes is not None:
        ns.discipline = [lanes[0]]  # the left lane's, checked as the app's one discipline
    scenario, discipline, seed = app_choice(ns)  # validated before any server starts
    if mix is not None:
        discipline = mix_discipline(mix)
    record = recording_output(ns.record, ns.force)
    loaded = scenario_files.load_any(scenario)
    choice = server_choice(ns)
    need_terminal()
    from ckviz.tui.launch import run_app

    with open_workspace(choice, need_of([loaded], lanes=2)) as workspace:  # compare mode: 2
        code = run_app(
            workspace.server,
            scenario,
            lanes[0] if lanes else discipline,
            seed,
            compare_with=lanes[1] if lanes else None,
            namespace=workspace.namespace,
            check_invariants=ns.check_invariants,
            consumers=consumers,
            record=record,
        )
    workspace.raise_left()
    return code


def consumers_choice(ns: argparse.Namespace) -> tuple[int | Lineup | None, Lineup | None]:
    """`--consumers` as the app takes it (`ckviz serve` too): a count, or a mix, which then
    names each consumer's discipline; (the value read, once, here; the mix or None)."""
    if ns.consumers is None:  # the usual case: the headless plan's checks are not loaded
        return None, None
    from ckviz.headless.plan import check_consumers

    consumers = check_consumers(ns.consumers)
    mix = consumers if not isinstance(consumers, int) else None
    if mix is not None and ns.discipline:
        raise UsageError(
            "--consumers: a mix (name:count,...) names each consumer's discipline; "
            "drop --discipline"
        )
    return consumers, mix


def mix_discipline(mix: Lineup) -> str:
    """The discipline a mixed lane shows: its first consumer's (model/lineup.py)."""
    return mix.names[0]


def recording_output(path: str | None, force: bool) -> Output | None:
    """Where --record writes the session (checked before any server starts), or None."""
    if path is None:
        return None
    if path in STDOUT_NAMES:
        raise UsageError("--record: the app draws on stdout; give a file path for the session")
    return check_output(path, "--record", force)


def need_terminal() -> None:
    """The app draws on a terminal and reads its keys: without one (a CI job that forgot
    --headless) it would draw into a pipe and wait for keys forever. Served to a browser
    (`ckviz serve`), Textual's web driver draws and reads through the pipes instead."""
    if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER:
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        stream = "stdin" if not sys.stdin.isatty() else "stdout"
        raise UsageError(
            f"the terminal app needs a terminal ({stream} is not one); run ckviz --headless "
            "for the matrix without one"
        )
