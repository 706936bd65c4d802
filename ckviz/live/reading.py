"""One refresh of a live queue (SPEC-live 3): read commands only, each bounded, in pipelined
round trips. The first reads ckIndex's and ckVtime's first entries, the limits, the counters
and the vtime keys' TTL; the second the variants on screen and the first the next dequeue
looks at (their depth, head and held runs, and their tags); the third the messages of their
due heads. A variant the next order reaches beyond those is read in one more pair of trips:
a refresh reads what its picture shows and its next order needs, not every tagged key.

No MULTI (a watcher must not write, and a picture refreshed a second later need not be
atomic): other clients' commands may run between these, so the reads are checked against
each other and every sign of a write in between is noted (`LivePicture.torn`). What it cost
the server: INFO commandstats around it on a measured refresh, else priced (cost.Meter).
"""

from __future__ import annotations

import time
import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from ckviz.errors import RedisUnavailable, ServerRefused, echo, first_line
from ckviz.live.cost import Meter, command_kind, stats_of
from ckviz.live.flag import Flag, Head, infer_flag
from ckviz.live.names import LiveQueue
from ckviz.live.order import Unread, baseline_order, reads_needed, room, vtime_order, walk
from ckviz.live.picture import LivePicture, ReadCost, VariantRow
from ckviz.live.replies import (
    DEFAULT_ENV_LIMIT,
    clock_ms,
    head,
    limits_of,
    message_fields,
    pairs,
    torn_notes,
    variant_row,
    vtime_read,
    whole,
)
from ckviz.model.arithmetic import HELD_SUFFIX

__all__ = ["BATCH", "DEFAULT_ENV_LIMIT", "SCREENFUL", "read_picture"]

SCREENFUL = 20  # variants a refresh shows, besides those the next order needs
BATCH = 10  # the dequeue's max count the next order is worked out for
MAX_TRIPS = 12  # a refresh's round trips at most (the order's walk is bounded: a safety net)

Commands = list[tuple[tuple[Any, ...], str]]  # (args, the reply's name)


@dataclass(slots=True)
class _Session:
    """What holds from one refresh of a connection to the next: the clock it may read (TIME,
    or INFO server for a user without it) and its cost meter."""

    clock: tuple[Any, ...]
    meter: Meter


_SESSIONS: weakref.WeakKeyDictionary[redis.Redis, _Session] = weakref.WeakKeyDictionary()


def read_picture(
    client: redis.Redis,
    queue: LiveQueue,
    screenful: int = SCREENFUL,
    batch: int = BATCH,
    measured: bool = False,
) -> LivePicture:
    """One refresh of `queue` (a client with decode_responses=True); `measured`: INFO
    commandstats around it whatever the meter says (the bench measures every refresh)."""
    started = time.perf_counter()
    session = _SESSIONS.get(client)
    if session is None:
        session = _SESSIONS[client] = _Session(_server_time_read(client), Meter())
    trips = _Trips(client, queue, session.clock, measured or session.meter.due())
    read = _Read(queue, trips.send(_first_trip(queue, screenful, batch)), screenful, batch)
    read.take(trips.send(read.rows_trip(read.first_keys())))
    messages = read.messages_trip()
    if messages:
        read.take(trips.send(messages))
    flag, order = _settle(read, trips)
    cost = trips.close(session.meter, (time.perf_counter() - started) * 1000)
    return read.picture(flag, order, trips.after, cost)


class _Trips:
    """The refresh's round trips: each one's replies by name, every command kind sent counted,
    and every trip after the first ends with the reads that show a write in between."""

    def __init__(
        self, client: redis.Redis, queue: LiveQueue, clock: tuple[Any, ...], measuring: bool
    ) -> None:
        self.client, self.clock, self.measuring = client, clock, measuring
        self.ck_index, self.env_held = queue.ck_index, queue.env_held
        self.sent: Counter[str] = Counter()
        self.count = 0
        self.before: dict[str, Any] = {}
        self.after: dict[str, Any] = {}

    def send(self, commands: Commands) -> dict[str, Any]:
        if self.count >= MAX_TRIPS:
            raise ServerRefused("a refresh needed more round trips than it may take")
        if self.count == 0:
            commands = [((*self.clock,), "clock"), *commands]
            if self.measuring:
                commands.insert(0, (("INFO", "commandstats"), "stats"))
        else:
            commands = [*commands, *self.closing]
        self.count += 1
        replies = _send(self.client, commands)
        self.sent.update(command_kind(args) for args, _ in commands)
        self.after = {name: replies[name] for _, name in self.closing} if self.count > 1 else {}
        if self.count == 1:
            self.before = replies
        return replies

    @property
    def closing(self) -> Commands:
        return [
            (("ZCARD", self.ck_index), "index_total_after"),
            (("SCARD", self.env_held), "env_held_after"),
            ((*self.clock,), "clock_after"),
        ]

    def close(self, meter: Meter, wall_ms: float) -> ReadCost:
        """The refresh's cost: measured (a last trip of INFO commandstats), or priced."""
        if not self.measuring:
            return meter.estimated(self.sent, self.count, wall_ms)
        stats = _send(self.client, [(("INFO", "commandstats"), "stats")])["stats"]
        # the second INFO's own call is not yet counted when it answers: the first is
        return meter.measured(
            stats_of(self.before["stats"]), stats_of(stats), self.sent, self.count + 1, wall_ms
        )


def _first_trip(queue: LiveQueue, screenful: int, batch: int) -> Commands:
    index_n, tags_n = reads_needed(batch)
    index_n = max(index_n, screenful)
    vt = queue.key
    return [
        (("ZRANGE", queue.ck_index, 0, index_n - 1, "WITHSCORES"), "index"),
        (("ZRANGE", queue.ck_index, -1, -1, "WITHSCORES"), "newest"),
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
        (("PTTL", vt(":ckVtime")), "tags_pttl"),
        (("GET", vt(":ckVtimeFloor")), "floor"),
        (("PTTL", vt(":ckVtimeFloor")), "floor_pttl"),
        (("ZRANGE", vt(":ckVtimeIdle"), 0, screenful - 1, "WITHSCORES"), "idle"),
        (("ZCARD", vt(":ckVtimeIdle")), "idle_total"),
    ]


class _Read:
    """What one refresh has read so far, and what it reads next."""

    def __init__(self, queue: LiveQueue, r1: dict[str, Any], screenful: int, batch: int) -> None:
        self.queue, self.r1, self.screenful, self.batch = queue, r1, screenful, batch
        self.now = clock_ms(r1["clock"])
        self.index = pairs(r1["index"], queue)
        self.tags = pairs(r1["tags"], queue)
        self.newest = pairs(r1["newest"], queue)
        self.limits = limits_of(r1["env_limit"], r1["env_burst"], r1["queue_limit"])
        self.env_held = int(r1["env_held"])
        self.room = room(self.limits, self.env_held, batch)
        self.has_vtime = bool(int(r1["tags_total"]) or r1["floor"] is not None)
        self.replies: dict[str, Any] = {}  # every later trip's replies by name
        self.tag_of = dict(self.tags)
        self._asked: list[str] = []  # the variants of the last rows trip

    def first_keys(self) -> list[str]:
        """The variants on screen (ckIndex's first), the newest head (a sign of the flag) and
        the first the next call looks at under either discipline."""
        take = max(1, self.room.take)
        screen = [key for key, _ in self.index[: self.screenful]]
        calls = [
            k
            for d in self.disciplines
            for k in walk(d, self.tags, self.index, take, self.now)[:take]
        ]
        return list(dict.fromkeys(screen + [k for k, _ in self.newest] + calls))

    @property
    def disciplines(self) -> tuple[str, ...]:
        return ("baseline", "vtime") if self.has_vtime else ("baseline",)

    @property
    def rows_read(self) -> list[str]:
        return [name[len("depth ") :] for name in self.replies if name.startswith("depth ")]

    def rows_trip(self, keys: Sequence[str]) -> Commands:
        """Each variant's depth, head and held runs; with vtime keys, their tags (ZMSCORE)."""
        commands: Commands = []
        for key in keys:
            variant = self.queue.variant(key)
            commands += [
                (("ZCARD", variant), f"depth {key}"),
                (("ZRANGE", variant, 0, 0, "WITHSCORES"), f"head {key}"),
                (("SCARD", variant + HELD_SUFFIX), f"held {key}"),
            ]
        if self.has_vtime and keys:
            members = [self.queue.member(key) for key in keys]
            commands.append((("ZMSCORE", self.queue.key(":ckVtime"), *members), "tags of"))
        self._asked = list(keys)
        return commands

    def take(self, replies: dict[str, Any]) -> None:
        """A later trip's replies: the rows, the tags of those read, the messages."""
        if "tags of" in replies:
            for key, tag in zip(self._asked, replies.pop("tags of"), strict=True):
                if tag is not None:
                    self.tag_of[key] = float(tag)
        self.replies |= replies

    def due_unmessaged(self) -> list[tuple[str, str]]:
        """(key, head run) of each variant read whose head is due and whose message is not."""
        found = []
        for key in self.rows_read:
            run = head(self.replies[f"head {key}"])
            if run is not None and run[1] <= self.now and f"message {key}" not in self.replies:
                found.append((key, run[0]))
        return found

    def messages_trip(self) -> Commands:
        return [
            (("GET", self.queue.message(run)), f"message {key}")
            for key, run in self.due_unmessaged()
        ]

    def flag(self) -> Flag:
        pttl = int(self.r1["tags_pttl"])
        heads = []
        for key in self.rows_read:
            found = head(self.replies[f"head {key}"])
            _, attempt = message_fields(self.replies.get(f"message {key}"))
            if found is not None and attempt is not None:
                heads.append(Head(key, found[0], found[1], attempt))
        return infer_flag(
            self.has_vtime,
            pttl if pttl != -2 else int(self.r1["floor_pttl"]),
            heads,
            self.now,
        )

    def rows(self) -> dict[str, VariantRow]:
        """The variants read whose due head's message is read too (what the order may use)."""
        waiting = {key for key, _ in self.due_unmessaged()}
        scores = dict(self.index + self.newest)
        return {
            key: variant_row(key, self.replies, scores.get(key), self.tag_of.get(key), self.now)
            for key in self.rows_read
            if key not in waiting
        }

    def order(self, discipline: str, complete: bool = False) -> tuple[Any, ...]:
        take = self.room.take
        if take == 0:
            return ()
        rows = self.rows()
        if discipline == "vtime":
            return vtime_order(self.tags, self.index, rows, self.limits, take, self.now, complete)
        return baseline_order(self.index, rows, self.limits, take, self.now, complete)

    def more(self, discipline: str, key: str) -> Commands:
        """What to read for the order to go on past `key`: its message, or its row and those
        of the next few the call may look at."""
        if key in self.rows_read:
            return self.messages_trip()
        order = walk(discipline, self.tags, self.index, max(1, self.room.take), self.now)
        at = order.index(key) if key in order else 0
        read = set(self.rows_read)
        # as many as read so far: a walk past many keys at their limit takes few trips
        chunk = [k for k in order[at : at + max(4, self.room.take, len(read))] if k not in read]
        return self.rows_trip(chunk or [key])

    def picture(
        self, flag: Flag, order: tuple[Any, ...], after: dict[str, Any], cost: ReadCost
    ) -> LivePicture:
        r1, rows = self.r1, self.rows()
        screen = [key for key, _ in self.index[: self.screenful]]
        shown = list(dict.fromkeys(screen + [p.key for p in order if p.key in rows]))
        vtime = (
            vtime_read(r1, self.tags, self.queue, self.screenful)
            if flag.discipline == "vtime"
            else None
        )
        return LivePicture(
            queue=self.queue,
            read_at_ms=self.now,
            span_ms=round(clock_ms(after["clock_after"]) - self.now, 3),
            discipline=flag.discipline,
            discipline_from=flag.why,
            index_total=int(r1["index_total"]),
            variants=tuple(rows[key] for key in shown if key in rows),
            length_counter=whole(r1["length"]),
            running_counter=whole(r1["running"]),
            env_held=self.env_held,
            queue_held=int(r1["queue_held"]),
            limits=self.limits,
            vtime=vtime,
            next_order=order,
            order_note=self.room.note,
            batch=self.batch,
            torn=torn_notes(r1, after, self.index, rows),
            cost=cost,
        )


def _settle(read: _Read, trips: _Trips) -> tuple[Flag, tuple[Any, ...]]:
    """The flag and the next order, reading more while the order reaches unread variants
    (the flag may change as the reads grow: a key read later may have no tag)."""
    while True:
        flag = read.flag()
        try:
            return flag, read.order(flag.discipline)
        except Unread as missing:
            more = read.more(flag.discipline, missing.key)
            if not more:  # nothing left to read: what is unread is not there
                return flag, read.order(flag.discipline, complete=True)
            read.take(trips.send(more))
            if not more[0][1].startswith("message "):
                read.take(trips.send(read.messages_trip()))


def _server_time_read(client: redis.Redis) -> tuple[Any, ...]:
    """The clock a connection may read: TIME, or INFO server for a read-only ACL user (TIME
    is not in @read)."""
    try:
        client.execute_command("TIME")  # type: ignore[no-untyped-call]
    except redis.exceptions.NoPermissionError:
        return ("INFO", "server")
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise RedisUnavailable(f"cannot reach the watched server: {first_line(exc)}") from None
    return ("TIME",)


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
