"""The CK run queue on Redis: enqueue / dequeue / ack / rescore / read, batched into trips.

A *trip* is one round trip (a huge one, several): its commands go out in one packet, their
replies come back in order. The driver decides what shares a trip; this module sends every
command and reads every reply; a refusal among them goes to store/cache_repair.py, which
repairs a script cache flush (NOSCRIPT) without replaying what already took effect.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import redis
from redis.exceptions import ResponseError

from ckviz.errors import RedisUnavailable, ServerRefused
from ckviz.model.arithmetic import BURST_FACTOR, DEFAULT_QUEUE_LIMIT, HELD_SUFFIX, SCAN_FACTOR
from ckviz.model.queue import IndexEntry, PlannedRun
from ckviz.store import replies as reading
from ckviz.store.cache_repair import repaired
from ckviz.store.digest import decode_digest
from ckviz.store.keys import MASTER_MEMBER, MESSAGE_PREFIX, KeyLayout, ck_members
from ckviz.store.lifecycle import LifecycleKeys
from ckviz.store.lifecycle.calls import LifecycleCalls
from ckviz.store.messages import RunCalls, message_payload
from ckviz.store.packing import DequeueCommands, Reads, Rescores, pack, packed
from ckviz.store.pages import Join, inspect_argvs, join_digests, pages
from ckviz.store.prefix import delete_prefix
from ckviz.store.preflight import raise_refusal
from ckviz.store.scripts import LUA_ORDER, RUN_QUEUE, Decoder, Door, LuaScript
from ckviz.store.wire import Wire

MAX_PACKET = 20_000  # commands per packet: its replies come back within the timeout
# dequeue.lua's ARGV 5-10: the arithmetic it shares with ckviz (model/arithmetic.py)
DEQUEUE_CONSTANTS = (
    BURST_FACTOR,
    MASTER_MEMBER,
    MESSAGE_PREFIX,
    SCAN_FACTOR,
    DEFAULT_QUEUE_LIMIT,
    HELD_SUFFIX,
)


_is_refusal = ResponseError.__instancecheck__


def _ignore(reply: Any) -> None:
    return None


def _no(reply: Any) -> bool:
    return False


def _present(reply: list[Any]) -> list[bool]:
    return [score is not None for score in reply]


def _keep(reply: Any) -> Any:
    return reply


# Not redis-py's pipeline: that one sends an extra SCRIPT EXISTS round trip per execute.
class Trip(LifecycleCalls):
    """Commands that travel to Redis together; `send()` returns each one's decoded reply.
    The lifecycle's calls (nack, dead_letter, expire_ttl) are `LifecycleCalls`'."""

    def __init__(self, queue: RunQueue) -> None:
        self._queue = queue
        self._commands: list[tuple[tuple[Any, ...], Decoder, bool]] = []
        self._joins: list[tuple[int, int, Join, Decoder]] = []  # reads sent in pages

    def __len__(self) -> int:
        return len(self._commands)

    def by(self, queue: RunQueue) -> Trip:
        """This trip, its calls going through `queue`'s door: another consumer of the same
        namespace whose scripts differ (a mixed rollout). The commands and slots are shared."""
        if queue is self._queue:
            return self
        view = Trip(queue)
        view._commands = self._commands
        return view

    def _add(self, args: tuple[Any, ...], decode: Decoder, scripted: bool) -> int:
        self._commands.append((args, decode, scripted))
        return len(self._commands) - 1

    def enqueue(
        self,
        run: PlannedRun,
        timestamp: int,
        ttl_expires_at: int | None = None,
        fast_path_at: int | None = None,
    ) -> int:
        """Queue `run` at `timestamp`; its reply: whether it took the fast path. With a TTL or
        a fast-path offer (`fast_path_at`: the client's now when it offers, see
        `lifecycle.client.fast_path_offer`) the door's lifecycle enqueue runs instead."""
        payload = message_payload(run, timestamp, ttl_expires_at)
        if ttl_expires_at is not None or fast_path_at is not None:
            args = (run.key, run.run_id, timestamp, payload, ttl_expires_at, fast_path_at)
            return self.enqueue_lifecycle(*args)
        command = self._queue.runs.enqueue(run.run_id, run.key, timestamp, payload)
        return self._add(command, _no, scripted=True)

    def ack(self, run_id: str, key: str) -> int:
        return self._add(self._queue.runs.ack(run_id, key), _ignore, scripted=True)

    def hold_from_start(self, run_id: str, key: str) -> None:
        """A run already holding its slot when a forked start begins (ckviz whatif): in its
        key's and the env's held sets, as a dequeue would have left it."""
        k = self._queue.keys
        self._add(("SADD", k.ck_held(key), run_id), _ignore, scripted=False)
        self._add(("SADD", k.env_held, run_id), _ignore, scripted=False)

    def start_zset(self, name: str, scores: dict[str, float]) -> None:
        """A sorted set of a forked start (a discipline's state as it was read), under the
        queue's base key `B:<name>`, before anything runs."""
        if scores:
            pairs = [part for member, score in scores.items() for part in (score, member)]
            self._add(("ZADD", self._queue.keys.base_key(name), *pairs), _ignore, scripted=False)

    def start_string(self, name: str, value: float) -> None:
        """A string of a forked start, `B:<name>` (a discipline's floor as it was read)."""
        self._add(("SET", self._queue.keys.base_key(name), repr(value)), _ignore, scripted=False)

    def dequeue(self, max_count: int, now: int) -> int:
        q = self._queue
        return self._add(q.dequeues[(max_count, now)], q.dequeue_reply, scripted=True)

    def read_state(self, listing_limit: int, keys: Iterable[str] = ()) -> int:
        """The door's read-only view of the discipline's own keys (`Door.reads`): all of it
        while it is at most `listing_limit` long, else only `keys`'."""
        door = self._queue.door
        if door.reads is None:
            raise ValueError("this door has no script reading its discipline's state")
        members = ck_members(keys)
        decode = door.read_reply or _keep
        if door.read_join is None:  # a read that cannot be joined is never split
            return self._read(door.reads, self._queue.state_keys, (listing_limit, *members), decode)
        argvs = [(listing_limit if i == 0 else 0, *page) for i, page in enumerate(pages(members))]
        return self._paged(door.reads, self._queue.state_keys, argvs, door.read_join, decode)

    def rescore(self, order: Sequence[str], scores: Sequence[int]) -> int:
        """The members (best first) get their `rescore_scores`, in one ZADD."""
        if len(scores) != len(order):
            raise ValueError(f"{len(order)} members but {len(scores)} scores")
        command = self._queue.rescores.command(order, scores)  # score, member pairs, best first
        return self._add(command, _ignore, scripted=False)

    def env_scores(self, run_ids: Sequence[str]) -> int:
        """The runs' scores in the env queue (None: not queued), in order (Redis 6.2+)."""
        return self._add(("ZMSCORE", self._queue.keys.env_queue, *run_ids), _keep, scripted=False)

    def read_index(self, entries: bool = True) -> int:
        """ckIndex with its scores: as entries, or as (members, scores) lists to compare."""
        decode = reading.index_entries if entries else reading.index_pairs
        return self._add(self._queue.index_read, decode, scripted=False)

    def inspect(self, keys: Iterable[str], listing_limit: int) -> int:
        """The read-only digest of `inspect.lua` (a `QueueDigest`): env counts, then (queued,
        held) for every ckIndex member while ckIndex has at most `listing_limit` members, and
        for `keys`."""
        members = ck_members(keys)
        argvs = inspect_argvs(self._queue.keys.prefix, listing_limit, members)
        return self._paged(
            RUN_QUEUE["inspect"], self._queue.inspect_keys, argvs, join_digests, decode_digest
        )

    def _paged(
        self,
        script: LuaScript,
        keys: tuple[str, ...],
        argvs: list[tuple[Any, ...]],
        join: Join,
        decode: Decoder,
    ) -> int:
        """A read sent as a call per page (store/pages.py); the first page's slot: the reply."""
        if len(argvs) == 1:
            return self._read(script, keys, argvs[0], decode)
        first = len(self._commands)
        for argv in argvs:
            self._read(script, keys, argv, _keep)
        self._joins.append((first, len(argvs), join, decode))
        return first

    def _read(
        self, script: LuaScript, keys: tuple[str, ...], argv: tuple[Any, ...], decode: Decoder
    ) -> int:
        """A read-only call: most are made before, and kept packed by the queue (`Reads`)."""
        return self._add(self._queue.reads.command(script.sha, keys, argv), decode, scripted=True)

    def call(
        self, script: LuaScript, keys: Sequence[str], argv: Sequence[Any], decode: Decoder = _ignore
    ) -> int:
        """Add a call of `script` (the store's or its door's: loaded when the queue opened);
        the reply's slot in `send()`'s list."""
        return self._add(("EVALSHA", script.sha, len(keys), *keys, *argv), decode, scripted=True)

    def send(self, via: RunQueue | None = None) -> list[Any]:
        """Make the round trip(s) and return every reply, decoded, in the order added; on
        `via`'s connection if given (another consumer of the same namespace), else its own."""
        replies = (via or self._queue).execute(self._commands)
        for first, count, join, decode in self._joins:
            replies[first] = decode(join(replies[first : first + count]))
        return replies


class RunQueue:
    """One run's CK run queue: its key namespace, its connection and its trip counters."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        env_limit: int,
        per_key_limit: int | None = None,
        door: Door = LUA_ORDER,
        ttl_system: bool = True,
    ) -> None:
        self.client = client
        self.keys = KeyLayout(prefix)
        self.lifecycle = LifecycleKeys(self.keys)
        # without a TTL system no TTL entry is written and the dequeue passes "" for its queue
        self.ttl_system = ttl_system
        ttl_queue = self.lifecycle.ttl_queue if ttl_system else ""
        self.dequeue_lifecycle = (ttl_queue, self.lifecycle.length_counter)  # ARGV 11, 12
        self.door = door  # the scripts a run goes through, and the discipline's own keys
        self.dequeue_reply = door.dequeue_reply or reading.dequeued_runs
        # what open() loads: the store's scripts and the door's own
        self.scripts = tuple({s.sha: s for s in (*RUN_QUEUE.values(), *door.scripts)}.values())
        self.state_keys = tuple(self.keys.base_key(name) for name in door.state_keys)
        k = self.keys
        self.dequeue_keys = (
            k.ck_index,
            k.env_held,
            k.env_limit,
            k.queue_limit,
            k.env_queue,
            k.master_queue,
            k.env_burst,
            *self.state_keys,
        )
        self.inspect_keys = (
            k.ck_index,
            k.env_held,
            k.env_queue,
            k.master_queue,
            self.lifecycle.length_counter,
        )
        self.env_limit = env_limit
        self.per_key_limit = per_key_limit
        self.round_trips = 0
        self.commands_sent = 0
        self._connection: Any = None
        self._wire: Wire | None = None
        argv_tail = (env_limit, *DEQUEUE_CONSTANTS, *self.dequeue_lifecycle, *door.argv)
        self.dequeues = DequeueCommands(door.dequeue.sha, self.dequeue_keys, prefix, argv_tail)
        self.rescores = Rescores(k.ck_index)  # its ZADDs, packed
        self.reads = Reads()  # its checks' reads, packed
        self.runs = RunCalls(self.keys, door, self.state_keys)  # enqueues and acks, packed
        self.index_read = packed(("ZRANGE", k.ck_index, 0, -1, "WITHSCORES"))

    def trip(self) -> Trip:
        return Trip(self)

    def open(self) -> None:
        """Take a dedicated connection, load the scripts once and set the limits: the env's
        limit and burst factor in one write, as the reference's `updateEnvConcurrencyLimits`
        writes both (the scripts read them from their keys)."""
        self.connect()
        self.load_scripts()
        k = self.keys
        env = ("MSET", k.env_limit, self.env_limit, k.env_burst, BURST_FACTOR)
        setup: list[tuple[Any, ...]] = [env]
        if self.per_key_limit is not None:
            setup.append(("SET", self.keys.queue_limit, self.per_key_limit))
        _refused(setup, self._roundtrip([(args, _ignore, False) for args in setup]))

    def connect(self) -> None:
        """Take a dedicated connection only: another consumer's, on a namespace already open."""
        try:
            self._connection = self.client.connection_pool.get_connection()
            self._wire = Wire(self._connection)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise RedisUnavailable(f"cannot connect to Redis: {exc}") from None
        except BaseException:
            # A stop (Ctrl-C) inside redis-py's connect: the pool took the connection back
            # half made (a socket, no reply reader), and would hand it to the cleanup next.
            self.client.connection_pool.disconnect(inuse_connections=False)
            raise

    def load_scripts(self) -> None:
        commands = [(("SCRIPT", "LOAD", s.source), _ignore, False) for s in self.scripts]
        _refused([c[0] for c in commands], self._roundtrip(commands))

    def close(self) -> None:
        if self._connection is not None:
            self.client.connection_pool.release(self._connection)
            self._connection = self._wire = None

    def peek_index(self, limit: int | None = None) -> tuple[list[IndexEntry], int]:
        """ckIndex's first `limit` entries (None: all) with their scores, and its size, for a
        display: a round trip the run's figures do not count."""
        index = self.keys.ck_index
        commands: list[tuple[tuple[Any, ...], Decoder, bool]] = [(("ZCARD", index), _keep, False)]
        if limit is None or limit > 0:
            last = -1 if limit is None else limit - 1
            commands.append(
                (("ZRANGE", index, 0, last, "WITHSCORES"), reading.index_entries, False)
            )
        trips, sent = self.round_trips, self.commands_sent
        size, *entries = self.execute(commands)
        self.round_trips, self.commands_sent = trips, sent
        return (list(entries[0]) if entries else []), int(size)

    def in_index(self, keys: Sequence[str]) -> list[bool]:
        """Whether each key is a ckIndex member now, for a display: a round trip the run's
        figures do not count (Redis 6.2+'s ZMSCORE)."""
        if not keys:
            return []
        members = ck_members(keys)
        command = (("ZMSCORE", self.keys.ck_index, *members), _present, False)
        trips, sent = self.round_trips, self.commands_sent
        (found,) = self.execute([command])
        self.round_trips, self.commands_sent = trips, sent
        return found  # type: ignore[no-any-return]

    def execute(self, commands: list[tuple[tuple[Any, ...], Decoder, bool]]) -> list[Any]:
        replies = self._roundtrip(commands)
        # (an error reply is rare: looked for in C first, its kind and place only then)
        if any(map(_is_refusal, replies)):
            replies = repaired(commands, replies, self.load_scripts, self._roundtrip)
        return [decode(reply) for (_, decode, _), reply in zip(commands, replies, strict=True)]

    def _roundtrip(self, commands: Sequence[tuple[tuple[Any, ...], Decoder, bool]]) -> list[Any]:
        if not commands:
            return []
        conn, wire = self._connection, self._wire
        assert wire is not None
        replies: list[Any] = []
        for start in range(0, len(commands), MAX_PACKET):  # each packet within the timeout
            packet = [c[0] for c in commands[start : start + MAX_PACKET]]
            try:
                replies += wire.roundtrip(pack(conn, packet), len(packet))
            except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
                conn.disconnect()
                raise RedisUnavailable(f"lost the Redis server mid-run: {exc}") from None
            except BaseException:  # a stop mid-trip: replies may still come, for no one
                conn.disconnect()  # (the pool must not hand it to the next cell as it is)
                raise
            self.round_trips += 1
        self.commands_sent += len(commands)
        return replies

    def delete_namespace(self) -> int:
        """Delete every key under this run's prefix (and nothing else)."""
        return delete_prefix(self.client, self.keys.prefix)


def share_scripts(queues: Sequence[RunQueue]) -> None:
    """Consumers of one namespace whose doors differ (a mixed rollout) each load every door's
    scripts: the first opens the namespace with all of them, and a trip sent on any one's
    connection repairs a flushed script cache for the calls of every door it carries."""
    every = {s.sha: s for q in queues for s in q.scripts}
    for q in queues:
        q.scripts = tuple(every.values())


def _refused(commands: Sequence[tuple[Any, ...]], replies: Sequence[Any]) -> None:
    """Setup (SCRIPT LOAD, the limits) must all succeed: a refusal is one line, exit 3."""
    for args, reply in zip(commands, replies, strict=True):
        if isinstance(reply, ResponseError):
            raise_refusal(reply, " ".join(map(str, args[:2])))
            raise ServerRefused(f"Redis refused {' '.join(map(str, args[:2]))}: {reply}")
