"""How replies read: the runs a dequeue script handed out, ckIndex read."""

from __future__ import annotations

import json
from typing import Any

from ckviz.errors import ServerRefused
from ckviz.model.queue import DequeuedRun, IndexColumns, dequeued_run
from ckviz.store.keys import KEY_OF


def dequeued_runs(reply: list[list[Any]]) -> list[DequeuedRun]:
    """A dequeue script's {run id, score, payload} triples, in serve order."""
    runs = []
    for run_id, score, payload in reply:
        if payload is None:  # the Lua found the run in its queue but not its message key
            raise ServerRefused(
                f"run {run_id}'s payload vanished from the server mid-run: evicted "
                "(check maxmemory-policy) or deleted by someone else"
            )
        key = _json_document(payload)[0]["concurrencyKey"]
        runs.append(dequeued_run((run_id, float(score), key)))
    return runs


# The payload ckviz wrote, read as the JSON document it starts with: json.loads wraps this one
# call in two more and two regular-expression matches, once per dequeued run.
_json_document = json.JSONDecoder().raw_decode


def index_entries(reply: list[str]) -> IndexColumns:
    # Read before every rescore, K entries each: as columns, built in bulk over slices.
    members = reply[0::2]
    return IndexColumns(members, list(map(KEY_OF.__getitem__, members)), _scores(reply))


def _scores(reply: list[str]) -> list[float]:
    return list(map(float, reply[1::2]))


IndexPairs = tuple[list[str], list[float]]  # ckIndex's members and their scores, in order


def index_pairs(reply: list[str]) -> IndexPairs:
    return reply[0::2], _scores(reply)
