"""A what-if's fork (SPEC-live 6): one read of a live queue made into a scenario whose start is
that state, for every discipline to run forward from on ckviz's own server. The scenario is a
trace and a TOML beside it: every queued run arrives at 0 with its age (its score's distance
from the read, so the queues keep their order), every held run holds its slot from 0 for its
hold, and the env's limit (times its burst factor) and the queue's limit become the
scenario's env limit and per-key cap."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ckviz.inputs.trace_fields import MAX_LIFE_MS
from ckviz.live.reading import DEFAULT_ENV_LIMIT
from ckviz.live.state import QueueState

FORK_COLUMNS = ("key", "arrival_ms", "hold_ms", "run_id", "age_ms", "start", "delay_ms")
TRACE_NAME = "fork.csv"


@dataclass(frozen=True, slots=True)
class Fork:
    """The scenario a live state makes: its runs' rows, its limits, what the queue runs."""

    rows: list[tuple[str, ...]]
    env_limit: int
    per_key_cap: int | None
    running: str  # the discipline the queue runs now: baseline, or vtime when ckVtime exists
    queued: int
    held: int
    notes: list[str]
    vtime: list[str] = field(default_factory=list)  # the TOML lines of its vtime state


def fork_of(state: QueueState, hold_of: Callable[[str], int]) -> Fork:
    """The fork of `state`; `hold_of(key)` is a run's hold in ms (a flag's, or a capture's)."""
    rows: list[tuple[str, ...]] = []
    held = 0
    for ck in sorted(state.held):
        for rid in sorted(state.held[ck]):
            rows.append((ck, "0", str(hold_of(ck)), rid, "", "held", ""))
            held += 1
    queued = 0
    for ck in sorted(state.queued):
        for rid, score in state.queued[ck]:
            age, delay = max(0, state.read_ms - score), max(0, score - state.read_ms)
            rows.append((ck, "0", str(hold_of(ck)), rid, _n(age), "", _n(min(delay, MAX_LIFE_MS))))
            queued += 1
    env, per_key, notes = _limits(state, held)
    running = "vtime" if state.vtime is not None else "baseline"
    keys = {row[0] for row in rows}
    vtime = _vtime_start(state, keys) if state.vtime is not None else []
    return Fork(rows, env, per_key, running, queued, held, notes, vtime)


def _vtime_start(state: QueueState, keys: set[str]) -> list[str]:
    """The TOML of vtime's state as read: its tags (of the fork's keys: a tag of a key with
    no run is a stale one), floor and idle set."""
    lines = ["[vtime_start]"]
    if state.floor is not None:
        lines.append(f"floor = {float(state.floor)!r}")
    tags = {k: t for k, t in (state.vtime or {}).items() if k in keys}
    for table, values in (("tags", tags), ("idle", state.idle)):
        lines.append(f"[vtime_start.{table}]")
        lines += [f"{json.dumps(k)} = {float(v)!r}" for k, v in sorted(values.items())]
    return lines


def _n(value: int) -> str:
    return str(value) if value else ""


def _limits(state: QueueState, held: int) -> tuple[int, int | None, list[str]]:
    notes = []
    limit = state.env_limit
    if limit is None:
        notes.append(f"the env's limit is unset: {DEFAULT_ENV_LIMIT}, as the dequeue assumes")
        limit = DEFAULT_ENV_LIMIT
    env = max(1, math.floor(limit * (state.burst_factor or 1.0)))
    if held > env:
        notes.append(f"{held} runs held over the env's {env} slots: the fork's limit is {held}")
        env = held
    others = len(state.env_held - {rid for ids in state.held.values() for rid in ids})
    if others:
        notes.append(f"{others} runs of the env's other queues hold slots: not in the fork")
    per_key = (
        state.queue_limit if state.queue_limit is not None and state.queue_limit < env else None
    )
    return env, per_key, notes


def hold_from_capture(runs: Mapping[str, list[int]], default_ms: int) -> Callable[[str], int]:
    """A key's hold: the mean of its runs' holds in a capture, else of all its runs', else
    `default_ms`."""
    every = [hold for holds in runs.values() for hold in holds]
    overall = round(sum(every) / len(every)) if every else default_ms
    means = {key: round(sum(holds) / len(holds)) for key, holds in runs.items() if holds}
    return lambda key: max(1, means.get(key, overall))


def write_fork(folder: Path, fork: Fork, name: str, header: list[str]) -> Path:
    """The fork's trace and scenario TOML in `folder`; the TOML's path."""
    text = io.StringIO()
    for line in header:
        text.write("# " + "".join(c if c.isprintable() else " " for c in line).replace('"', "'"))
        text.write("\n")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(FORK_COLUMNS)
    writer.writerows(fork.rows)
    (folder / TRACE_NAME).write_text(text.getvalue(), encoding="utf-8")
    toml = [
        f"name = {json.dumps(name)}",
        f"description = {json.dumps('a live queue forked by ckviz whatif')}",
        f"env_limit = {fork.env_limit}",
    ]
    if fork.per_key_cap is not None:
        toml += ["[caps]", f"per_key = {fork.per_key_cap}"]
    toml += ["[trace]", f"path = {json.dumps(TRACE_NAME)}", *fork.vtime]
    path = folder / "whatif.toml"
    path.write_text("\n".join(toml) + "\n", encoding="utf-8")
    return path
