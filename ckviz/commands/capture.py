"""`ckviz capture --redis-url URL --queue TEXT --seconds N --out trace.csv`: a live queue's
traffic recorded as a trace, read-only (docs/live.md). Ctrl-C or SIGTERM ends it with the
trace written; a server that goes away: the trace up to then, and exit 3."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ckviz.commands.parsing import CommandParser, add_quiet
from ckviz.errors import ExitCode, UsageError, echo, one_line
from ckviz.live.capture import Capture, run_capture
from ckviz.live.capture_trace import trace_text
from ckviz.live.finding import find_queue
from ckviz.live.names import DEFAULT_PREFIX
from ckviz.outputs.interrupts import INTERRUPTS
from ckviz.outputs.writer import check_output, write_output
from ckviz.store.preflight import redact

MAX_SECONDS = 86_400.0
METHODS = ("auto", "notify", "poll")


def add_watched_options(p: argparse.ArgumentParser) -> None:
    """The watched server and queue: read, never written."""
    g = p.add_argument_group("the watched queue (read only, never written)")
    g.add_argument("--redis-url", required=True, metavar="URL", help="the server the queue is on")
    g.add_argument(
        "--prefix",
        default=DEFAULT_PREFIX,
        metavar="P",
        help=f"the run queue's key prefix (default '{DEFAULT_PREFIX}')",
    )
    g.add_argument(
        "--queue", required=True, metavar="TEXT", help="the base queue: its key, name or a part"
    )


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="ckviz capture", description=__doc__)
    add_watched_options(p)
    p.add_argument("--seconds", type=float, required=True, metavar="N", help="how long to record")
    p.add_argument("--out", required=True, metavar="PATH", help="the trace (CSV) to write")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="change notices (CLIENT TRACKING), polling, or notices where the server allows "
        "them (default auto)",
    )
    p.add_argument(
        "--interval",
        type=float,
        default=0.25,
        metavar="S",
        help="seconds between two polls (default 0.25; notices need none)",
    )
    add_quiet(p)
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(argv)
    if not 0 < ns.seconds <= MAX_SECONDS:
        raise UsageError(f"capture: --seconds must be from 0 (excluded) to {MAX_SECONDS:g}")
    if not 0.001 <= ns.interval <= 60:
        raise UsageError("capture: --interval must be from 0.001 to 60 seconds")
    out = check_output(ns.out, "--out", ns.force)
    client, found = find_queue(ns.redis_url, ns.prefix, ns.queue, "capture")
    queue, shown = found.queue, redact(found.node)

    def started(cap: Capture) -> None:  # after the start is read: a test waits for this line
        if not ns.quiet:
            say = (
                f"capturing {echo(queue.base)} by {_how(cap)} for {ns.seconds:g} s (Ctrl-C ends it)"
            )
            print(say, file=sys.stderr, flush=True)

    with INTERRUPTS.polled():
        cap = run_capture(
            client,
            found.node,
            queue,
            ns.seconds,
            ns.method,
            ns.interval,
            lambda: INTERRUPTS.requested,
            started,
        )
    with INTERRUPTS.saving():
        write_output(out, trace_text(cap, shown))
    counts = cap.recorder.counts()
    if not ns.quiet:
        print(
            f"captured {counts['runs']} runs of {echo(queue.base)} in "
            f"{(cap.ended_ms - cap.started_ms) / 1000:.1f} s by {_how(cap)}: {out}",
            file=sys.stderr,
        )
    if cap.stopped in ("server gone", "server refused"):
        why = "went away" if cap.stopped == "server gone" else "refused a read"
        print(
            f"ckviz: error: the server {why} ({one_line(cap.error or '')}); the trace up to then "
            f"is in {out}",
            file=sys.stderr,
        )
        return int(ExitCode.REDIS)
    return 0


def _how(cap: Capture) -> str:
    return "change notices" if cap.method == "notify" else f"polling every {cap.interval_ms:g} ms"
