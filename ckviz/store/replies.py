"""How the scripts' replies read: dequeued runs, and the vtime dequeue and state replies."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ckviz.errors import ServerRefused
from ckviz.model.queue import DequeuedRun
from ckviz.model.vtime import Visit, VtimeDequeue, VtimeState
from ckviz.store.keys import ck_member, key_of_member


def dequeued_runs(reply: list[list[Any]]) -> list[DequeuedRun]:
    """A dequeue script's {run id, score, payload} triples, in serve order."""
    runs = []
    for run_id, score, payload in reply:
        if payload is None:  # the Lua found the run in its queue but not its message key
            raise ServerRefused(
                f"run {run_id}'s payload vanished from the server mid-run: evicted "
                "(check maxmemory-policy) or deleted by someone else"
            )
        runs.append(DequeuedRun(run_id, float(score), json.loads(payload)["concurrencyKey"]))
    return runs


def _pairs(flat: list[Any]) -> zip[tuple[str, float]]:
    return zip(flat[::2], map(float, flat[1::2]), strict=True)


def vtime_dequeue(reply: list[Any] | None) -> VtimeDequeue:
    """vtime_dequeue.lua's {runs, trace, floor} ({} when the env was full)."""
    if not reply:
        return VtimeDequeue([], [], None)
    runs, trace, floor = reply
    visits = [
        Visit(
            int(trace[i]),
            key_of_member(trace[i + 1]),
            trace[i + 2],
            trace[i + 3],
            float(trace[i + 4]) if trace[i + 4] else None,
        )
        for i in range(0, len(trace), 5)
    ]
    return VtimeDequeue(dequeued_runs(runs), visits, float(floor))


def vtime_state(reply: list[Any]) -> VtimeState:
    """vtime_state.lua's {floor, listed, tags, idle}."""
    floor, listed, tags, idle = reply
    ours = ck_member("")
    return VtimeState(
        None if floor is None else float(floor),
        listed == 1,
        {key_of_member(m): t for m, t in _pairs(tags) if m.startswith(ours)},
        {key_of_member(m): t for m, t in _pairs(idle)},
        tuple(m for m in tags[::2] if not m.startswith(ours)),
    )


# A door's dequeue (or read) script whose reply is not plain runs names its reader here.
DEQUEUE_REPLIES: dict[str, Callable[[Any], Any]] = {"vtime_dequeue": vtime_dequeue}
READ_REPLIES: dict[str, Callable[[Any], Any]] = {"vtime_state": vtime_state}
