"""One refresh of a live queue (SPEC-live 3): read commands only, each bounded, in three
pipelined round trips (the second reads the variants the first found, the third the messages
of the heads the next dequeue may take), with INFO commandstats around them for the cost, and
the server's clock for the read time.

No MULTI (a watcher must not write, and a picture refreshed a second later need not be
atomic): other clients' commands may run between these, so the reads are checked against
each other and every sign of a write in between is noted (`LivePicture.torn`).
"""

from __future__ import annotations

import json
import math
import time
import weakref
from collections import Counter
from collections.abc import Sequence
from typing import Any

import redis

from ckviz.errors import RedisUnavailable, ServerRefused, echo, first_line
from ckviz.live.cost import command_kind, read_cost, stats_of
from ckviz.live.names import LiveQueue
from ckviz.live.order import baseline_order, reads_needed, room, vtime_order
from ckviz.live.picture import Limits, LivePicture, ReadCost, VariantRow, VtimeRead
from ckviz.model.arithmetic import DEFAULT_QUEUE_LIMIT, HELD_SUFFIX

SCREENFUL = 20  # variants a refresh shows, besides those the next order needs
BATCH = 10  # the dequeue's max count the next order is worked out for
DEFAULT_ENV_LIMIT = 10  # what the dequeue's caller passes when the env's limit is unset
_CLOCKS: weakref.WeakKeyDictionary[redis.Redis, bool] = weakref.WeakKeyDictionary()


def read_picture(
    client: redis.Redis, queue: LiveQueue, screenful: int = SCREENFUL, batch: int = BATCH
) -> LivePicture:
    """One refresh of `queue` (a client with decode_responses=True)."""
    started = time.perf_counter()
    allowed = _CLOCKS.get(client)
    if allowed is None:
        allowed = _CLOCKS[client] = _time_allowed(client)
    clock: tuple[Any, ...] = ("TIME",) if allowed else ("INFO", "server")
    index_reads, tag_reads = reads_needed(batch)
    first = _first_trip(queue, max(index_reads, screenful), max(tag_reads, screenful), screenful)
    first.insert(1, (clock, "clock"))
    r1 = _send(client, first)
    index = _pairs(r1["index"], queue)
    tags = _pairs(r1["tags"], queue)
    keys = list(dict.fromkeys([key for key, _ in index] + [key for key, _ in tags]))
    second = _second_trip(queue, keys)
    r2 = _send(client, second)
    due = _due_heads(r2, keys, _ms(r1["clock"]))
    third = [
        *((("GET", queue.message(run)), f"message {key}") for key, run in due.items()),
        # read again, to see a write that came between the trips
        (("ZCARD", queue.ck_index), "index_total_after"),
        (("SCARD", queue.env_held), "env_held_after"),
        (clock, "clock_after"),
        (("INFO", "commandstats"), "stats"),
    ]
    r3 = _send(client, third)
    wall_ms = (time.perf_counter() - started) * 1000
    sent = Counter(command_kind(args) for args, _ in first + second + third[:-1])
    cost = read_cost(stats_of(r1["stats"]), stats_of(r3["stats"]), sent, 3, wall_ms)
    return _picture(queue, r1, r2 | r3, index, tags, keys, screenful, batch, cost)


Commands = list[tuple[tuple[Any, ...], str]]  # (args, the reply's name)


def _first_trip(queue: LiveQueue, index_n: int, tags_n: int, screenful: int) -> Commands:
    vt = queue.key
    return [
        (("INFO", "commandstats"), "stats"),
        (("ZRANGE", queue.ck_index, 0, index_n - 1, "WITHSCORES"), "index"),
        (("ZCARD", queue.ck_index), "index_total"),
        (("GET", queue.env_key(":concurrency")), "env_limit"),
        (("GET", queue.env_key(":concurrencyBurstFactor")), "env_burst"),
        (("GET", vt(":concurrency")), "queue_limit"),
        (("SCARD", queue.env_held), "env_held"),
        (("SCARD", queue.queue_held), "queue_held"),
        (("GET", vt(":lengthCounter")), "length"),
        (("GET", vt(":runningCounter")), "running"),
        (("ZRANGE", vt(":ckVtime"), 0, tags_n - 1, "WITHSCORES"), "tags"),
        (("ZCARD", vt(":ckVtime")), "tags_total"),
        (("GET", vt(":ckVtimeFloor")), "floor"),
        (("ZRANGE", vt(":ckVtimeIdle"), 0, screenful - 1, "WITHSCORES"), "idle"),
        (("ZCARD", vt(":ckVtimeIdle")), "idle_total"),
    ]


def _second_trip(queue: LiveQueue, keys: Sequence[str]) -> Commands:
    commands: Commands = []
    for key in keys:
        variant = queue.variant(key)
        commands += [
            (("ZCARD", variant), f"depth {key}"),
            (("ZRANGE", variant, 0, 0, "WITHSCORES"), f"head {key}"),
            (("SCARD", variant + HELD_SUFFIX), f"held {key}"),
        ]
    return commands


def _head(reply: Any) -> tuple[str, float] | None:
    """A variant's head from `ZRANGE V 0 0 WITHSCORES` (None: empty)."""
    pairs = reply if reply and isinstance(reply[0], list | tuple) else _flat(reply)
    return (str(pairs[0][0]), float(pairs[0][1])) if pairs else None


def _due_heads(r2: dict[str, Any], keys: Sequence[str], now: float) -> dict[str, str]:
    """key -> its head run, for the heads due by `now`: those the dequeue may take, whose
    message it reads (a run past its TTL is dropped, not served)."""
    due = {}
    for key in keys:
        head = _head(r2[f"head {key}"])
        if head is not None and head[1] <= now:
            due[key] = head[0]
    return due


def _send(client: redis.Redis, commands: Commands) -> dict[str, Any]:
    """One round trip; the replies by name. A refused command is one line, exit 3."""
    pipe = client.pipeline(transaction=False)
    for args, _ in commands:
        pipe.execute_command(*args)  # type: ignore[no-untyped-call]
    try:
        replies = pipe.execute(raise_on_error=False)
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise RedisUnavailable(f"lost the watched server: {first_line(exc)}") from None
    for (args, _), reply in zip(commands, replies, strict=True):
        if isinstance(reply, Exception) and str(reply).startswith("WRONGTYPE"):
            raise ServerRefused(
                f"{echo(str(args[1]))} is not of the type {args[0]} reads: this queue's keys "
                "are not the run queue's layout"
            )
        if isinstance(reply, Exception):
            raise ServerRefused(f"the watched server refused {args[0]}: {first_line(reply)}")
    return {name: reply for (_, name), reply in zip(commands, replies, strict=True)}


def _time_allowed(client: redis.Redis) -> bool:
    """Whether TIME may be sent: a read-only ACL user may not (TIME is not in @read), and
    reads the clock from INFO server instead."""
    try:
        client.execute_command("TIME")  # type: ignore[no-untyped-call]
    except redis.exceptions.NoPermissionError:
        return False
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise RedisUnavailable(f"cannot reach the watched server: {first_line(exc)}") from None
    return True


def _ms(reply: Any) -> float:
    """The server's clock in ms, from TIME or INFO server."""
    if isinstance(reply, dict):
        return int(reply["server_time_usec"]) / 1000
    seconds, micros = reply
    return int(seconds) * 1000 + int(micros) / 1000


def _pairs(reply: Sequence[Any], queue: LiveQueue) -> list[tuple[str, float]]:
    """A ZRANGE WITHSCORES of variant members (flat: member, score, ...) -> (concurrency key,
    score); a member of another queue (not one of this queue's variants) is left out."""
    pairs = reply if reply and isinstance(reply[0], list | tuple) else _flat(reply)
    return [
        (queue.concurrency_key_of(member), float(score))
        for member, score in pairs
        if queue.is_member(member)
    ]


def _flat(reply: Sequence[Any]) -> list[tuple[Any, Any]]:
    """A flat WITHSCORES reply (member, score, ...) as pairs (redis-py's callbacks may or may
    not have paired it)."""
    return list(zip(reply[0::2], reply[1::2], strict=True))


def _number(reply: Any, kind: type[int] | type[float]) -> int | float | None:
    if reply is None:
        return None
    try:
        value = float(reply)
    except ValueError:
        return None
    return kind(value) if math.isfinite(value) else None


def _limits(r1: dict[str, Any]) -> Limits:
    assumed = []
    env_limit = _number(r1["env_limit"], int)
    burst = _number(r1["env_burst"], float)
    queue_limit = _number(r1["queue_limit"], int)
    if env_limit is None:
        assumed.append(f"env limit {DEFAULT_ENV_LIMIT} (its key is unset)")
    if burst is None:
        assumed.append("burst factor 1 (its key is unset)")
    env = int(env_limit if env_limit is not None else DEFAULT_ENV_LIMIT)
    capacity = math.floor(env * (burst if burst is not None else 1.0))
    variant = min(int(queue_limit if queue_limit is not None else DEFAULT_QUEUE_LIMIT), env)
    return Limits(
        int(env_limit) if env_limit is not None else None,
        burst,
        int(queue_limit) if queue_limit is not None else None,
        capacity,
        variant,
        tuple(assumed),
    )


def _picture(
    queue: LiveQueue,
    r1: dict[str, Any],
    r2: dict[str, Any],
    index: list[tuple[str, float]],
    tags: list[tuple[str, float]],
    keys: list[str],
    screenful: int,
    batch: int,
    cost: ReadCost,
) -> LivePicture:
    now, after = _ms(r1["clock"]), _ms(r2["clock_after"])
    scores, tag_of = dict(index), dict(tags)
    rows = {key: _row(key, r2, scores.get(key), tag_of.get(key), now) for key in keys}
    limits = _limits(r1)
    env_held = int(r1["env_held"])
    vtime = _vtime(r1, tags, queue, screenful) if int(r1["tags_total"]) or r1["floor"] else None
    take = room(limits, env_held, batch)
    if take.take == 0:
        order: tuple[Any, ...] = ()
    elif vtime is not None:
        order = vtime_order(tags, index, rows, limits, take.take, now)
    else:
        order = baseline_order(index, rows, limits, take.take, now)
    return LivePicture(
        queue=queue,
        read_at_ms=now,
        span_ms=round(after - now, 3),
        discipline="vtime" if vtime is not None else "baseline",
        index_total=int(r1["index_total"]),
        variants=tuple(rows[key] for key in keys[: max(screenful, len(order))]),
        length_counter=_whole(r1["length"]),
        running_counter=_whole(r1["running"]),
        env_held=env_held,
        queue_held=int(r1["queue_held"]),
        limits=limits,
        vtime=vtime,
        next_order=order,
        order_note=take.note,
        batch=batch,
        torn=_torn(r1, r2, index, rows),
        cost=cost,
    )


def _whole(reply: Any) -> int | None:
    value = _number(reply, int)
    return None if value is None else int(value)


def _row(
    key: str, r2: dict[str, Any], score: float | None, tag: float | None, now: float
) -> VariantRow:
    head = _head(r2[f"head {key}"])
    run, head_score = head if head is not None else (None, None)
    age = None if head_score is None else round(now - head_score, 3)
    expires, attempt = _message_fields(r2.get(f"message {key}"))
    return VariantRow(
        key,
        score,
        int(r2[f"depth {key}"]),
        run,
        head_score,
        age,
        int(r2[f"held {key}"]),
        tag,
        head_expires_ms=expires,
        head_attempt=attempt,
        head_message=f"message {key}" not in r2 or r2[f"message {key}"] is not None,
    )


def _message_fields(text: Any) -> tuple[float | None, int | None]:
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


def _vtime(
    r1: dict[str, Any], tags: list[tuple[str, float]], queue: LiveQueue, screenful: int
) -> VtimeRead:
    return VtimeRead(
        tags=tuple(tags[:screenful]),
        tags_total=int(r1["tags_total"]),
        floor=_number(r1["floor"], float),
        idle=tuple(_pairs(r1["idle"], queue)),
        idle_total=int(r1["idle_total"]),
    )


def _torn(
    r1: dict[str, Any],
    r2: dict[str, Any],
    index: list[tuple[str, float]],
    rows: dict[str, VariantRow],
) -> tuple[str, ...]:
    """Every sign that the queue was written between the round trips."""
    notes = []
    if int(r1["index_total"]) != int(r2["index_total_after"]):
        notes.append(
            f"ckIndex went from {r1['index_total']} to {r2['index_total_after']} "
            "variants during the read"
        )
    if int(r1["env_held"]) != int(r2["env_held_after"]):
        notes.append(
            f"the env's held runs went from {r1['env_held']} to "
            f"{r2['env_held_after']} during the read"
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
