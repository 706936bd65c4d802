"""A capture as a ckviz trace (docs/scenarios.md): comment lines saying where and how it was
recorded and what it could not see, then a CSV row per run (live/recorder.py)."""

from __future__ import annotations

import csv
import io
import math
from datetime import UTC, datetime

from ckviz.inputs.trace_fields import MAX_LIFE_MS
from ckviz.live.capture import Capture
from ckviz.live.recorder import TRACE_COLUMNS, trace_rows

POLL_BLIND = (
    "polling cannot see a run that arrives and leaves between two polls, nor count one: the "
    "queue keeps no count of runs served (lengthCounter and the env zset count runs queued "
    "now); use --method notify where the server allows it"
)


def provenance(cap: Capture, server: str) -> list[str]:
    """The header lines (without '# '), one fact each."""
    counts = cap.recorder.counts()
    outcomes = ", ".join(
        f"{word} {counts.get(word, 0)}" for word in ("acked", "dead", "expired", "removed", "open")
    )
    if cap.method == "notify":
        how = "notify (CLIENT TRACKING ON BCAST: the keys written, named as they are written)"
        blind = "nothing while the notice connection held"
    else:
        how = f"poll every {cap.interval_ms:g} ms"
        blind = POLL_BLIND
    if cap.refused:
        how += f" (notices refused: {cap.refused})"
    stopped = cap.stopped + (f" ({cap.error})" if cap.error else "")
    lines = [
        "ckviz capture of a trigger.dev run queue",
        f"queue: {cap.queue.base}",
        f"prefix: {cap.queue.prefix}",
        f"server: {server}",
        f"method: {how}",
        f"started: {_iso(cap.started_ms)}; ended: {_iso(cap.ended_ms)}; stopped: {stopped}",
        f"runs: {counts['runs']} ({outcomes}; retried {counts.get('retried', 0)}); "
        f"queued or held at the start: {counts['before_start']}",
        f"runs seen in part (a dequeue or ack time not measured): {counts['in_part']}",
        f"runs it could not see: {blind}",
        "arrival_ms: exact (each run's enqueue timestamp, ms since the first)",
        # rounded up: a bound stated below what was measured claims more than the reads saw
        f"hold_ms: measured to {max(1, math.ceil(cap.precision_ms))} ms (the mean of a retried "
        "run's attempts; a run served between two reads: half their gap)",
    ]
    if cap.queue_seen_empty_ms is not None:
        lines.append(f"the queue was seen empty at {_iso(cap.queue_seen_empty_ms)}")
    return lines


def trace_text(cap: Capture, server: str) -> str:
    """The whole trace file."""
    out = io.StringIO()
    for line in provenance(cap, server):
        out.write("# " + _comment(line) + "\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TRACE_COLUMNS)
    unknown = max(1.0, cap.precision_ms / 2)  # a hold between two reads: half their gap
    for row in trace_rows(cap.recorder, unknown):
        writer.writerow(_bounded(row))
    return out.getvalue()


def _bounded(row: tuple[str, ...]) -> tuple[str, ...]:
    """delay_ms and ttl_ms within what a trace takes (a longer one is cut to the bound)."""
    fixed = list(row)
    for i in (4, 5):
        if fixed[i] and int(fixed[i]) > MAX_LIFE_MS:
            fixed[i] = str(MAX_LIFE_MS)
    return tuple(fixed)


def _comment(text: str) -> str:
    """A comment stays one line and opens no CSV quote (a `"` would run into the rows)."""
    return "".join(c if c.isprintable() else " " for c in text).replace('"', "'")


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
