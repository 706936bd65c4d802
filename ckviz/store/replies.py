"""How a dequeue script's reply reads: the runs it handed out."""

from __future__ import annotations

import json
from typing import Any

from ckviz.errors import ServerRefused
from ckviz.model.queue import DequeuedRun


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
