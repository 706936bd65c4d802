"""The watched server's replies as a refresh reads them: sorted-set pairs, heads, numbers, the
server's clock, a head's message, the limits, a variant's row, vtime's state and the signs of
a torn read. Plain functions of the replies; the reads themselves are ckviz.live.reading's."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ckviz.live.names import LiveQueue
from ckviz.live.picture import Limits, VariantRow, VtimeRead
from ckviz.model.arithmetic import DEFAULT_QUEUE_LIMIT

DEFAULT_ENV_LIMIT = 10  # what the dequeue's caller passes when the env's limit is unset


def flat(reply: Sequence[Any]) -> list[tuple[Any, Any]]:
    """A WITHSCORES reply as pairs (redis-py's callbacks may or may not have paired it)."""
    if reply and isinstance(reply[0], list | tuple):
        return [(member, score) for member, score in reply]
    return list(zip(reply[0::2], reply[1::2], strict=True))


def pairs(reply: Sequence[Any], queue: LiveQueue) -> list[tuple[str, float]]:
    """A ZRANGE WITHSCORES of variant members -> (concurrency key, score); a member of another
    queue (not one of this queue's variants) is left out."""
    return [
        (queue.concurrency_key_of(member), float(score))
        for member, score in flat(reply)
        if queue.is_member(member)
    ]


def head(reply: Any) -> tuple[str, float] | None:
    """A variant's head from `ZRANGE V 0 0 WITHSCORES` (None: empty)."""
    found = flat(reply)
    return (str(found[0][0]), float(found[0][1])) if found else None


def clock_ms(reply: Any) -> float:
    """The server's clock in ms, from TIME or INFO server."""
    if isinstance(reply, Mapping):
        return int(reply["server_time_usec"]) / 1000
    seconds, micros = reply
    return int(seconds) * 1000 + int(micros) / 1000


def number(reply: Any, kind: type[int] | type[float]) -> int | float | None:
    """A stored number (None: absent, not a number, or not finite)."""
    if reply is None:
        return None
    try:
        value = float(reply)
    except ValueError:
        return None
    return kind(value) if math.isfinite(value) else None


def whole(reply: Any) -> int | None:
    value = number(reply, int)
    return None if value is None else int(value)


def message_fields(text: Any) -> tuple[float | None, int | None]:
    """A head run's message: its ttlExpiresAt and attempt (None: absent or unreadable)."""
    if not isinstance(text, str):
        return None, None
    try:
        message = json.loads(text)
    except ValueError:
        return None, None
    if not isinstance(message, dict):
        return None, None
    expires, attempt = message.get("ttlExpiresAt"), message.get("attempt")
    return (
        float(expires) if isinstance(expires, int | float) else None,
        int(attempt) if isinstance(attempt, int) else None,
    )


def limits_of(env_limit: Any, env_burst: Any, queue_limit: Any) -> Limits:
    """The limits as stored (GET replies) and as the dequeue uses them."""
    assumed = []
    env = number(env_limit, int)
    burst = number(env_burst, float)
    queue = number(queue_limit, int)
    if env is None:
        assumed.append(f"env limit {DEFAULT_ENV_LIMIT} (its key is unset)")
    if burst is None:
        assumed.append("burst factor 1 (its key is unset)")
    used = int(env if env is not None else DEFAULT_ENV_LIMIT)
    capacity = math.floor(used * (burst if burst is not None else 1.0))
    variant = min(int(queue if queue is not None else DEFAULT_QUEUE_LIMIT), used)
    return Limits(
        int(env) if env is not None else None,
        burst,
        int(queue) if queue is not None else None,
        capacity,
        variant,
        tuple(assumed),
    )


def variant_row(
    key: str, replies: dict[str, Any], score: float | None, tag: float | None, now: float
) -> VariantRow:
    """A variant's row from its replies (named `depth|head|held|message <key>`)."""
    found = head(replies[f"head {key}"])
    run, head_score = found if found is not None else (None, None)
    age = None if head_score is None else round(now - head_score, 3)
    expires, attempt = message_fields(replies.get(f"message {key}"))
    return VariantRow(
        key,
        score,
        int(replies[f"depth {key}"]),
        run,
        head_score,
        age,
        int(replies[f"held {key}"]),
        tag,
        head_expires_ms=expires,
        head_attempt=attempt,
        head_message=f"message {key}" not in replies or replies[f"message {key}"] is not None,
    )


def vtime_read(
    r1: dict[str, Any], tags: list[tuple[str, float]], queue: LiveQueue, screenful: int
) -> VtimeRead:
    """vtime's state as the first trip read it: the lowest tags, the floor, the idle set."""
    return VtimeRead(
        tags=tuple(tags[:screenful]),
        tags_total=int(r1["tags_total"]),
        floor=number(r1["floor"], float),
        idle=tuple(pairs(r1["idle"], queue)),
        idle_total=int(r1["idle_total"]),
    )


def torn_notes(
    r1: dict[str, Any],
    after: dict[str, Any],
    index: list[tuple[str, float]],
    rows: dict[str, VariantRow],
) -> tuple[str, ...]:
    """Every sign that the queue was written between the round trips."""
    notes = []
    if int(r1["index_total"]) != int(after["index_total_after"]):
        notes.append(
            f"ckIndex went from {r1['index_total']} to {after['index_total_after']} "
            "variants during the read"
        )
    if int(r1["env_held"]) != int(after["env_held_after"]):
        notes.append(
            f"the env's held runs went from {r1['env_held']} to "
            f"{after['env_held_after']} during the read"
        )
    for key, score in index:
        row = rows.get(key)
        if row is None:
            continue
        if row.depth == 0:
            notes.append(f"variant {key!r} emptied or deleted during the read")
        elif row.head_score is not None and row.head_score != score:
            notes.append(f"variant {key!r}'s head moved during the read")
    return tuple(notes)
