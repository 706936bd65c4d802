"""A what-if's fork (SPEC-live 6): one read of a live queue made into a scenario whose start is
that state, for every discipline to run forward from on ckviz's own server. The scenario is a
trace and a TOML beside it: every queued run arrives at 0 with its age (its score's distance
from the read, so the queues keep their order), every held run holds its slot from 0 for its
hold, and the env's capacity (its limit times its burst factor) and the variant's limit (the
queue's limit, never above the env's limit: the burst factor raises the env's capacity, not a
variant's) become the scenario's env limit and per-key cap.

The env's runs held by its other queues take env slots too: they hold them from 0 for the
default hold as keys of their own, OTHERS (and OTHERS 2, ... : no more in one than a variant
may hold). Such a key never has a run waiting, so no fairness figure judges it."""

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
OTHERS = "(the env's other queues)"  # the key holding the slots of the env's other queues


@dataclass(frozen=True, slots=True)
class Fork:
    """The scenario a live state makes: its runs' rows, its limits, what the queue runs."""

    rows: list[tuple[str, ...]]
    env_limit: int
    per_key_cap: int | None
    running: str  # the discipline the queue runs now (baseline, or vtime: ckviz.live.flag)
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
    env, per_key, notes = _limits(state, held + len(_others(state)))
    if state.flag.discipline == "baseline" and state.vtime is not None:
        notes.append(f"it runs the baseline though it has ckVtime keys: {state.flag.why}")
    for n, rid in enumerate(_others(state)):
        key = _others_key(n // (per_key or env), set(state.held) | set(state.queued))
        rows.append((key, "0", str(hold_of(key)), rid, "", "held", ""))
    queued = 0
    for ck in sorted(state.queued):
        for rid, score in state.queued[ck]:
            age, delay = max(0, state.read_ms - score), max(0, score - state.read_ms)
            rows.append((ck, "0", str(hold_of(ck)), rid, _n(age), "", _n(min(delay, MAX_LIFE_MS))))
            queued += 1
    running = state.flag.discipline
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


def _others(state: QueueState) -> list[str]:
    """The env's held runs that none of the queue's variants holds: its other queues'."""
    return sorted(state.env_held - {rid for ids in state.held.values() for rid in ids})


def _others_key(n: int, taken: set[str]) -> str:
    """The n-th key holding other queues' slots (one no variant of the queue has)."""
    key = OTHERS if n == 0 else f"{OTHERS} {n + 1}"
    return key if key not in taken else _others_key(n + 1000, taken)


def _limits(state: QueueState, held: int) -> tuple[int, int | None, list[str]]:
    """The fork's env limit (the env's capacity: its limit times its burst factor, at least
    what is held) and per-key cap (the variant's limit, when under the capacity); the notes."""
    notes = []
    limit = state.env_limit
    if limit is None:
        notes.append(f"the env's limit is unset: {DEFAULT_ENV_LIMIT}, as the dequeue assumes")
        limit = DEFAULT_ENV_LIMIT
    burst = state.burst_factor if state.burst_factor is not None else 1.0
    env = max(1, math.floor(limit * burst))
    if burst != 1.0:
        notes.append(f"the env's limit {limit} times its burst factor {burst:g}: {env} slots")
    if held > env:
        notes.append(f"{held} runs held over the env's {env} slots: the fork's limit is {held}")
        env = held
    others = len(_others(state))
    if others:
        notes.append(
            f"{others} runs of the env's other queues hold slots: held in the fork by "
            f"{OTHERS!r} for the default hold"
        )
    variant = min(state.queue_limit if state.queue_limit is not None else env, max(1, limit))
    return env, variant if variant < env else None, notes


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
