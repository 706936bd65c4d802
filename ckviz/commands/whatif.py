"""`ckviz whatif --redis-url URL --queue TEXT [--discipline D ...] [--headless]`: a live
queue's present state, read once and read-only, forked into a scenario every discipline runs
forward from on ckviz's own server (docs/live.md). Headless: results, report and verdict
like any run; else the app in compare mode, "as it runs now" against another discipline."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import redis

from ckviz.commands.capture import add_watched_options
from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.errors import RedisUnavailable, ServerRefused, UsageError, echo, first_line
from ckviz.live.finding import find_queue
from ckviz.live.state import read_queue
from ckviz.live.whatif import Fork, fork_of, hold_from_capture, write_fork
from ckviz.model.scenario import key_name_problem
from ckviz.store.preflight import redact

DEFAULT_HOLD_MS = 1000


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="ckviz whatif", description=__doc__)
    add_watched_options(p)
    p.add_argument(
        "--discipline",
        action="append",
        metavar="NAME",
        help="a discipline to run forward (repeatable; default every one headless)",
    )
    p.add_argument("--headless", action="store_true", help="results and verdict, no app")
    holds = p.add_mutually_exclusive_group()
    holds.add_argument(
        "--hold-ms",
        type=int,
        default=None,
        metavar="N",
        help=f"how long each run holds its slot (default {DEFAULT_HOLD_MS})",
    )
    holds.add_argument(
        "--capture", metavar="TRACE", help="each key's holds from a `ckviz capture` trace"
    )
    p.add_argument(
        "--own-redis-url",
        metavar="URL",
        help="ckviz's own server to run the fork on (default: an embedded one; never the "
        "watched server)",
    )
    p.add_argument("--keep", metavar="DIR", help="write the fork (scenario and trace) to DIR")
    p.add_argument("--out", metavar="PATH", help="headless: the results file (as --headless's)")
    p.add_argument("--force", action="store_true", help="headless: overwrite --out")
    add_quiet(p)
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(argv)
    if ns.hold_ms is not None and not 1 <= ns.hold_ms <= 86_400_000:
        raise UsageError("whatif: --hold-ms must be from 1 to 86,400,000")
    own = _own_server(ns)
    hold_of = _holds(ns)
    client, found = find_queue(ns.redis_url, ns.prefix, ns.queue, "whatif")
    try:
        state = read_queue(client, found.queue, messages=False)
    except redis.ResponseError as exc:  # a user without a read it needs
        raise ServerRefused(
            f"whatif: {redact(found.node)} refused a read: {first_line(exc)}"
        ) from None
    except (redis.RedisError, OSError) as exc:
        raise RedisUnavailable(
            f"whatif: {redact(found.node)} went away while read: {first_line(exc)}"
        ) from None
    fork = fork_of(state, hold_of)
    _nameable(fork, found.queue.base)
    if not fork.rows:
        raise UsageError(
            f"whatif: {echo(found.queue.base)} has no runs queued or held: nothing to fork"
        )
    header = _header(found.queue.base, redact(found.node), fork, state.read_ms)
    if not ns.quiet:
        for line in header[1:]:
            print(f"whatif: {echo(line, limit=400)}", file=sys.stderr)  # a name is anyone's
    return _in_folder(ns.keep, lambda folder: _run(ns, own, fork, folder, header))


def _nameable(fork: Fork, base: str) -> None:
    """Every concurrency key of the fork can name a scenario's key: one that cannot (a control
    character, anyone may write one) is said here, not as a line of a temporary trace."""
    for key in sorted({row[0] for row in fork.rows}):
        problem = key_name_problem(key)
        if problem is not None:
            raise UsageError(
                f"whatif: {echo(base)}'s concurrency key '{echo(key)}' cannot be forked: {problem}"
            )


def _own_server(ns: argparse.Namespace) -> list[str]:
    """The root command's server flags: ckviz's own server, never the watched one."""
    own = ns.own_redis_url
    if own is not None and redact(own) == redact(ns.redis_url):
        raise UsageError("whatif: --own-redis-url is the watched server; a fork never runs there")
    return ["--redis-url", own] if own else ["--redis", "embedded"]


def _holds(ns: argparse.Namespace) -> Callable[[str], int]:
    default = ns.hold_ms or DEFAULT_HOLD_MS
    if ns.capture is None:
        return lambda key: default
    from ckviz.inputs.trace import TraceProblems, read_trace
    from ckviz.inputs.trace_stream import replay

    try:
        runs = replay(read_trace(Path(ns.capture)))
    except TraceProblems as exc:
        raise UsageError(f"whatif: --capture: {exc.lines[0]}") from None
    per_key: dict[str, list[int]] = {}
    for run in runs:
        per_key.setdefault(run.key, []).append(run.hold_ms)
    return hold_from_capture(per_key, default)


def _header(base: str, server: str, fork: Fork, read_ms: int) -> list[str]:
    return [
        "ckviz whatif: a live queue's state, forked",
        f"queue: {base} on {server}, read at epoch ms {read_ms}",
        f"{fork.queued} runs queued, {fork.held} held; env limit {fork.env_limit}"
        + (f", per-key cap {fork.per_key_cap}" if fork.per_key_cap else "")
        + f"; it runs {fork.running} now",
        *fork.notes,
    ]


def _in_folder(keep: str | None, work: Callable[[Path], int]) -> int:
    if keep is not None:
        folder = Path(keep)
        if not folder.is_dir():
            raise UsageError(f"whatif: --keep: {echo(keep)} is not a folder")
        return work(folder)
    with tempfile.TemporaryDirectory(prefix="ckviz-whatif-") as temp:
        return work(Path(temp))


def _run(
    ns: argparse.Namespace, own: list[str], fork: Fork, folder: Path, header: list[str]
) -> int:
    from ckviz.commands.main import dispatch

    scenario = write_fork(folder, fork, "whatif", header)
    picked = [arg for name in ns.discipline or () for arg in ("--discipline", name)]
    if ns.headless:
        out = ["--out", ns.out] if ns.out else []
        return dispatch(
            ["--headless", "--scenario", str(scenario), *own, *picked, *out]
            + (["--force"] if ns.force else [])
        )
    other = (ns.discipline or ["vtime" if fork.running == "baseline" else "baseline"])[0]
    return dispatch([str(scenario), *own, "--compare", f"{fork.running},{other}"])
