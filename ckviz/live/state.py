"""One base queue's whole state, read once (SPEC-live 3): every CK variant's queued runs with
their timestamps, the runs held, the limits, and vtime's tags, floor and idle set when the
queue has them. Reads only, in pipelines of bounded commands (ZRANGE by pages, no KEYS, no
script): what a what-if forks and what a capture's poll compares."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis

from ckviz.live.flag import NO_VTIME, Flag, Head, infer_flag, last_written
from ckviz.live.names import LiveQueue
from ckviz.model.arithmetic import HELD_SUFFIX

PAGE = 1000  # members a ZRANGE reads at a time: a 100,000-run variant is 100 bounded reads
SIGNS = 10  # the newest runs whose messages may tell a stale ckVtime (ckviz.live.flag)
NO_FLAG = Flag("baseline", f"{NO_VTIME}: the flag is off")


def variant_held(queue: LiveQueue, ck: str) -> str:
    """A variant's held set, `P Q:ck:C:currentConcurrency`."""
    return queue.variant(ck) + HELD_SUFFIX


def ck_of(queue: LiveQueue, member: str) -> str | None:
    """The concurrency key of a ckIndex (or ckVtime) member; None: another queue's."""
    return queue.concurrency_key_of(member) if queue.is_member(member) else None


def dead_letter(queue: LiveQueue) -> str:
    return queue.env_key(":deadLetter")


@dataclass(slots=True)
class Message:
    """What a run's message says that a capture and a what-if use."""

    key: str
    timestamp: int | None
    attempt: int = 0
    ttl_expires_at: int | None = None
    queue: str = ""


def message_of(raw: bytes | None) -> Message | None:
    """A message's JSON, read leniently (a field of an unexpected type is left out)."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    key = data.get("concurrencyKey")
    return Message(
        key if isinstance(key, str) else "",
        _whole(data.get("timestamp")),
        _whole(data.get("attempt")) or 0,
        _whole(data.get("ttlExpiresAt")),
        data["queue"] if isinstance(data.get("queue"), str) else "",
    )


def _whole(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


@dataclass(slots=True)
class QueueState:
    """One read of a base queue. `queued[C]`: (run id, score) in Redis's order; `held[C]`:
    the run ids held by variant C. Read at `read_ms` (epoch ms), over `span_ms`: a picture
    read in several round trips may be torn by writes between them."""

    queue: LiveQueue
    read_ms: int
    span_ms: float = 0.0
    index: list[tuple[str, float]] = field(default_factory=list)  # (C, score)
    queued: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    held: dict[str, set[str]] = field(default_factory=dict)
    queue_limit: int | None = None
    env_limit: int | None = None
    burst_factor: float | None = None
    env_held: set[str] = field(default_factory=set)
    vtime: dict[str, float] | None = None  # C -> tag; None: the queue has no ckVtime
    floor: float | None = None
    idle: dict[str, float] = field(default_factory=dict)
    messages: dict[str, Message] = field(default_factory=dict)
    vtime_pttl: int = -2  # ckVtime's PTTL (its floor's when it has none): dates its last write
    flag: Flag = NO_FLAG  # the discipline the queue runs, and what told it (ckviz.live.flag)

    def run_key(self) -> dict[str, str]:
        """Every queued or held run id -> its concurrency key."""
        where = {rid: ck for ck, runs in self.queued.items() for rid, _ in runs}
        where.update((rid, ck) for ck, ids in self.held.items() for rid in ids)
        return where


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def zset_pages(client: redis.Redis, names: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
    """Whole sorted sets, each read in ZRANGE pages of PAGE members (one pipeline a round)."""
    found: dict[str, list[tuple[str, float]]] = {name: [] for name in names}
    pending = list(names)
    start = 0
    while pending:
        pipe = client.pipeline(transaction=False)
        for name in pending:
            pipe.zrange(name, start, start + PAGE - 1, withscores=True)
        replies = pipe.execute()
        more = []
        for name, page in zip(pending, replies, strict=True):
            found[name].extend((_text(m), float(s)) for m, s in page)
            if len(page) == PAGE:
                more.append(name)
        pending, start = more, start + PAGE
    return found


def set_members(client: redis.Redis, names: Sequence[str]) -> dict[str, set[str]]:
    """Sets read whole with SMEMBERS: held sets are bounded by the concurrency limits."""
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.smembers(name)
    return {
        name: {_text(m) for m in reply} for name, reply in zip(names, pipe.execute(), strict=True)
    }


def read_messages(
    client: redis.Redis, queue: LiveQueue, run_ids: Iterable[str]
) -> dict[str, Message]:
    """The messages of `run_ids` (GET each, in one pipeline; a run acked meanwhile has none)."""
    ids = list(run_ids)
    if not ids:
        return {}
    pipe = client.pipeline(transaction=False)
    for rid in ids:
        pipe.get(queue.message(rid))
    found = {}
    for rid, raw in zip(ids, pipe.execute(), strict=True):
        message = message_of(raw)
        if message is not None:
            found[rid] = message
    return found


def dead_lettered(client: redis.Redis, queue: LiveQueue, run_ids: Sequence[str]) -> set[str]:
    """Which of `run_ids` are in the env's dead-letter zset (ZMSCORE: the zset is never read
    whole, it grows with the env's history)."""
    if not run_ids:
        return set()
    scores = client.zmscore(dead_letter(queue), list(run_ids))
    return {rid for rid, score in zip(run_ids, scores, strict=True) if score is not None}


def read_variants(
    client: redis.Redis, queue: LiveQueue, cks: Iterable[str]
) -> tuple[dict[str, list[tuple[str, int]]], dict[str, set[str]]]:
    """The queued runs and held runs of the variants `cks` (absent keys read as empty)."""
    names = list(dict.fromkeys(cks))
    pages = zset_pages(client, [queue.variant(ck) for ck in names])
    held = set_members(client, [variant_held(queue, ck) for ck in names])
    queued = {ck: [(rid, int(s)) for rid, s in pages[queue.variant(ck)]] for ck in names}
    return queued, {ck: held[variant_held(queue, ck)] for ck in names}


def read_queue(
    client: redis.Redis, queue: LiveQueue, also: Iterable[str] = (), messages: bool = True
) -> QueueState:
    """The whole queue: ckIndex, every variant it names (and those in `also`: variants that
    may still hold runs after their queue drained), limits, vtime state, the dead letters
    and, with `messages`, every queued and held run's message."""
    started = time.time()
    tags, idle = queue.key(":ckVtime"), queue.key(":ckVtimeIdle")
    top = zset_pages(client, [queue.ck_index, tags, idle])
    pipe = client.pipeline(transaction=False)
    for name in (queue.key(":concurrency"), queue.env_key(":concurrency")):
        pipe.get(name)
    pipe.get(queue.env_key(":concurrencyBurstFactor"))
    pipe.get(queue.key(":ckVtimeFloor"))
    pipe.exists(tags)
    pipe.smembers(queue.env_held)
    pipe.pttl(tags)
    pipe.pttl(queue.key(":ckVtimeFloor"))
    queue_limit, env_limit, burst, floor, has_vtime, env_held, pttl, floor_pttl = pipe.execute()
    index = [(ck, score) for m, score in top[queue.ck_index] if (ck := ck_of(queue, m)) is not None]
    state = QueueState(queue, int(started * 1000), index=index)
    state.queue_limit, state.env_limit = _number(queue_limit, int), _number(env_limit, int)
    state.burst_factor, state.floor = _number(burst, float), _number(floor, float)
    state.env_held = {_text(m) for m in env_held}
    if has_vtime:
        state.vtime = _tags(queue, top[tags])
    state.idle = _tags(queue, top[idle])
    state.vtime_pttl = int(pttl) if int(pttl) != -2 else int(floor_pttl)
    cks = [ck for ck, _ in index] + list(also)
    state.queued, state.held = read_variants(client, queue, cks)
    drained = _drained_holders(client, queue, state)  # held runs of variants out of ckIndex
    if drained:
        more_queued, more_held = read_variants(client, queue, drained)
        state.queued.update(more_queued)
        state.held.update(more_held)
    if messages:
        state.messages = read_messages(client, queue, state.run_key())
    state.flag = _flag(client, state, has_vtime or state.floor is not None)
    state.span_ms = (time.time() - started) * 1000
    return state


def _flag(client: redis.Redis, state: QueueState, has_keys: bool) -> Flag:
    """The discipline the queue runs: its ckVtime keys' last write against the newest runs
    queued since (their messages read for their attempt: at most SIGNS of them)."""
    last = last_written(state.vtime_pttl, state.read_ms)
    late = sorted(
        (score, ck, rid)
        for ck, runs in state.queued.items()
        for rid, score in runs
        if has_keys and last is not None and last < score <= state.read_ms
    )[-SIGNS:]
    found = state.messages or read_messages(client, state.queue, [rid for _, _, rid in late])
    heads = [Head(ck, rid, score, found[rid].attempt) for score, ck, rid in late if rid in found]
    return infer_flag(has_keys, state.vtime_pttl, heads, state.read_ms)


def _drained_holders(client: redis.Redis, queue: LiveQueue, state: QueueState) -> list[str]:
    """The variants holding runs the env holds that no variant read holds: a variant whose
    runs are all held has left ckIndex. Their messages name them (`queue` is the variant, or
    the queue's name in ckviz's own layout); another queue's runs are left out."""
    seen = {rid for ids in state.held.values() for rid in ids}
    unknown = sorted(state.env_held - seen)
    found: dict[str, None] = {}
    for message in read_messages(client, queue, unknown).values():
        if message.queue in (queue.member(message.key), queue.base, queue.name):
            found[message.key] = None
    return [ck for ck in found if ck not in state.held]


def _tags(queue: LiveQueue, members: list[tuple[str, float]]) -> dict[str, float]:
    return {ck: tag for m, tag in members if (ck := ck_of(queue, m)) is not None}


def _number(raw: bytes | None, kind: type[int] | type[float]) -> Any:
    if raw is None:
        return None
    try:
        return kind(float(raw)) if kind is int else kind(raw)
    except ValueError:
        return None
