"""`ckviz watch --redis-url URL [--prefix P] [--queue TEXT]`: a production run queue, read-only
(SPEC-live). Without --queue, the CK'd queues under the prefix, one line each; with it, the
app's panes on that queue, refreshed every --interval (the app: ckviz.tui.live_launch), or
with --once one picture (--json: as JSON, for scripts) and exit."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence

import redis

from ckviz.commands.parsing import CommandParser
from ckviz.commands.redis_options import ENV_REDIS_URL
from ckviz.errors import ExitCode, UsageError, echo, one_line
from ckviz.live.connect import Node, attach
from ckviz.live.discover import FoundQueue, find_queues, nothing_found
from ckviz.live.finding import named_one
from ckviz.live.lines import picture_lines
from ckviz.live.names import DEFAULT_PREFIX
from ckviz.live.picture import LivePicture
from ckviz.live.reading import BATCH, SCREENFUL, read_picture
from ckviz.store.preflight import redact

Read = Callable[[], LivePicture]  # one picture of the watched queue

NO_APP = "the live app needs a terminal; use --once --json"


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="ckviz watch",
        description="Watch a trigger.dev run queue on a Redis server, read-only: only read "
        "commands, each bounded, a refresh's server time measured (INFO commandstats) and "
        "backed off when over --budget-ms. Without --queue, lists the CK'd queues found.",
    )
    p.add_argument("--redis-url", metavar="URL", help=f"the server (else env {ENV_REDIS_URL})")
    p.add_argument(
        "--prefix",
        default=DEFAULT_PREFIX,
        metavar="P",
        help=f"the run queue's key prefix (default '{DEFAULT_PREFIX}')",
    )
    p.add_argument("--queue", metavar="TEXT", help="the queue to watch: its name, or part of it")
    p.add_argument(
        "--interval",
        type=float,
        default=1.0,
        metavar="S",
        help="seconds between refreshes (default 1)",
    )
    p.add_argument(
        "--budget-ms",
        type=float,
        default=5.0,
        metavar="N",
        help="server time a refresh may cost (default 5 ms)",
    )
    p.add_argument(
        "--screenful",
        type=int,
        default=SCREENFUL,
        metavar="N",
        help=f"variants a refresh reads and shows (default {SCREENFUL})",
    )
    p.add_argument(
        "--batch",
        type=int,
        default=BATCH,
        metavar="N",
        help=f"the dequeue's max count the next order is worked out for (default {BATCH})",
    )
    p.add_argument("--once", action="store_true", help="print one picture and exit")
    p.add_argument("--json", action="store_true", help="with --once (or without --queue): JSON")
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    _check(ns)
    url = ns.redis_url or os.environ.get(ENV_REDIS_URL)
    if not url:
        raise UsageError(f"watch: give --redis-url URL (or set {ENV_REDIS_URL})")
    nodes = attach(url)
    found = find_queues(nodes, ns.prefix)
    if not found:
        print(f"ckviz: {one_line(nothing_found(nodes, ns.prefix))}", file=sys.stderr)
        return int(ExitCode.USAGE)
    if ns.queue is None:
        picker = None if (ns.json or ns.once) else _app_entry("run_picker")
        if picker is None:
            return _list(found, nodes, ns.json)
        clients = dict(nodes)
        code: int = picker(
            found,
            lambda f: _reader(clients[f.node], f, ns),
            redact(url),
            interval_s=ns.interval,
            budget_ms=ns.budget_ms,
        )
        return code
    chosen = named_one(found, ns.queue, "watch")
    read = _reader(dict(nodes)[chosen.node], chosen, ns)
    if ns.once:
        picture = read()
        print(_json(picture.to_json()) if ns.json else "\n".join(picture_lines(picture)))
        return int(ExitCode.OK)
    run_watch = _app_entry("run_watch")
    if run_watch is None:
        print(f"ckviz: {NO_APP}", file=sys.stderr)
        return int(ExitCode.USAGE)
    code = run_watch(
        queue=chosen.queue,
        server=redact(chosen.node),
        read=read,
        interval_s=ns.interval,
        budget_ms=ns.budget_ms,
    )
    return code


def _reader(client: redis.Redis, found: FoundQueue, ns: argparse.Namespace) -> Read:
    """What makes one picture of the queue `found`, on its node."""

    def read() -> LivePicture:
        return read_picture(client, found.queue, screenful=ns.screenful, batch=ns.batch)

    return read


def _app_entry(name: str) -> Callable[..., int] | None:
    """The app's entry `name` (ckviz.tui.live_launch: it lands apart from this command), where
    there is a terminal for it; None otherwise."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    try:
        entry: Callable[..., int] = getattr(importlib.import_module("ckviz.tui.live_launch"), name)
    except (ImportError, AttributeError):
        return None
    return entry


def _check(ns: argparse.Namespace) -> None:
    for flag, value in (("--interval", ns.interval), ("--budget-ms", ns.budget_ms)):
        if not value > 0:
            raise UsageError(f"watch: {flag} must be above 0, not {value}")
    for flag, count in (("--screenful", ns.screenful), ("--batch", ns.batch)):
        if not 1 <= count <= 1000:
            raise UsageError(f"watch: {flag} must be 1..1000, not {count}")
    if ns.json and ns.queue is not None and not ns.once:
        raise UsageError("watch: --json prints one picture: add --once")


def _list(found: Sequence[FoundQueue], nodes: Sequence[Node], as_json: bool) -> int:
    now_ms = _server_ms(nodes[0][1])
    if as_json:
        rows = [
            {
                "queue": f.queue.name,
                "org": f.queue.org,
                "project": f.queue.project,
                "env": f.queue.env,
                "base": f.queue.base,
                "keys": f.keys,
                "queued": f.depth,
                "queued_is_lower_bound": f.depth_bounded,
                "held": f.held,
                "oldest_head_ms": f.oldest_head_ms,
                "vtime": f.vtime,
            }
            for f in found
        ]
        print(_json(rows))
    else:
        for f in found:
            print(echo(f.line(now_ms), limit=400))
    return int(ExitCode.OK)


def _json(data: object) -> str:
    """One line of JSON in which a name's `##[` is spelled `##\\u005b`: the same string to a
    JSON reader, inert to a CI log (which acts on `##[` anywhere, and whose neutralising
    backslash would make the JSON invalid)."""
    return json.dumps(data).replace("##[", "##\\u005b")


def _server_ms(client: redis.Redis) -> float:
    """The server's clock for the list's ages (INFO server: TIME may not be allowed)."""
    info = client.info("server")
    return int(info["server_time_usec"]) / 1000
