"""`ckviz capture`'s reading (SPEC-live 5): a queue's traffic learnt by reading, by change
notices where the server sends them, by polling otherwise, into a Recorder. Nothing is
written to the watched server. A stop request (Ctrl-C, SIGTERM) or the server going away ends
the capture with what it saw; the caller writes the trace."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import redis

from ckviz.errors import RedisUnavailable, ServerRefused, first_line
from ckviz.live.names import DEQUEUED_SUFFIX, LiveQueue
from ckviz.live.notices import Notices, NoticesRefused
from ckviz.live.recorder import Left, Outcome, Recorder
from ckviz.live.state import (
    ck_of,
    dead_letter,
    dead_lettered,
    read_messages,
    read_queue,
    read_variants,
    zset_pages,
)
from ckviz.model.arithmetic import HELD_SUFFIX

Method = Literal["poll", "notify", "auto"]
SAFETY_POLL_S = 10.0  # with notices, everything is read again this often (and after a flush)
LAST_NOTICES_S = 0.05  # at the end, notices already on their way are read too


@dataclass(slots=True)
class Capture:
    """What a capture saw, and how: for the trace's provenance header."""

    queue: LiveQueue
    method: Literal["poll", "notify"]
    interval_ms: float
    started_ms: int
    recorder: Recorder = field(default_factory=Recorder)
    ended_ms: int = 0
    precision_ms: float = 0.0  # the largest gap between a change and the read that saw it
    reads: int = 0
    stopped: str = "time"  # time | interrupted | server gone
    error: str | None = None  # the server's last word, when it went away
    refused: str | None = None  # why notices were not used, under auto
    queue_seen_empty_ms: int | None = None  # when the queue had no runs left, if it did


def run_capture(
    client: redis.Redis,
    url: str,
    queue: LiveQueue,
    seconds: float,
    method: Method,
    interval_s: float,
    stop: Callable[[], bool],
    started: Callable[[Capture], None] = lambda cap: None,
) -> Capture:
    """Record `queue` for `seconds` (or until `stop()`), by `method`; `started` is
    told once the queue's start has been read (and notices are on)."""
    notices, refused = None, None
    if method != "poll":
        try:
            notices = Notices(url, _prefixes(queue))
        except NoticesRefused as exc:
            if method == "notify":
                raise ServerRefused(
                    f"--method notify: the server sends no notices ({exc})"
                ) from None
            refused = str(exc)
    now = _now_ms()
    cap = Capture(queue, "notify" if notices else "poll", interval_s * 1000, int(now))
    cap.refused = refused
    cap.recorder = Recorder(notices=notices is not None)
    deadline = time.monotonic() + seconds
    try:
        read_start(client, cap)
        started(cap)
        if notices is not None:
            _follow_notices(client, notices, cap, deadline, stop)
            _read(client, cap, _variants_named(queue, notices.wait(LAST_NOTICES_S)), _now_ms())
        else:
            _poll(client, cap, deadline, interval_s, stop)
    except (redis.ConnectionError, redis.TimeoutError, OSError, RedisUnavailable) as exc:
        cap.stopped, cap.error = "server gone", first_line(exc)
    except redis.ResponseError as exc:  # a read refused (an ACL without it): what was seen
        cap.stopped, cap.error = "server refused", first_line(exc)
    except KeyboardInterrupt:
        cap.stopped = "interrupted"
    finally:
        if notices is not None:
            notices.close()
    if stop() and cap.stopped == "time":
        cap.stopped = "interrupted"
    cap.ended_ms = int(_now_ms())
    cap.recorder.close(cap.ended_ms)
    return cap


def _prefixes(queue: LiveQueue) -> list[str]:
    """The queue's own keys (its variants, their held sets, ckIndex) and the env's
    dead-letter zset: two prefixes that do not overlap, as CLIENT TRACKING requires."""
    return [f"{queue.prefix}{queue.base}:", dead_letter(queue)]


def _now_ms() -> float:
    return time.time() * 1000


def read_start(client: redis.Redis, cap: Capture) -> None:
    """The queue as it stands: its runs are `before_start` (arrivals exact, holds cut)."""
    state = read_queue(client, cap.queue)
    t = state.read_ms
    for ck in {*state.queued, *state.held}:
        cap.recorder.observe(ck, state.queued.get(ck, ()), state.held.get(ck, set()), t, True)
    for rid, message in state.messages.items():
        cap.recorder.attempt_read(rid, message.attempt, t)
        _learn(cap.recorder, rid, message.timestamp, message.ttl_expires_at)
    cap.reads += 1


def _learn(recorder: Recorder, rid: str, timestamp: int | None, expires: int | None) -> None:
    ttl = expires - timestamp if expires is not None and timestamp is not None else None
    recorder.arrived_at(rid, timestamp, ttl)


def _poll(
    client: redis.Redis, cap: Capture, deadline: float, interval_s: float, stop: Callable[[], bool]
) -> None:
    """Every `interval_s`: ckIndex, then every variant it names or that holds runs. A change
    seen by one read, stamped with the read's start, happened after the previous read began
    and before this one ended: a time is off by at most the gap between two starts plus a
    read's length, and a hold (two such times) by the longest gap plus the longest read (a
    loaded machine stretches both)."""
    last = float(cap.started_ms)
    gap = read = 0.0
    more = True
    while more:  # the last read, when stopped or at the deadline: complete up to the end
        wait = min(interval_s, deadline - time.monotonic())
        more = wait > 0 and not stop()
        if more:
            _sleep(wait, stop)
        began = _now_ms()
        poll_once(client, cap, began)
        gap, read = max(gap, began - last), max(read, _now_ms() - began)
        cap.precision_ms = gap + read
        last = began


def _sleep(seconds: float, stop: Callable[[], bool]) -> None:
    """Sleep in slices, so a stop request is seen within 50 ms."""
    end = time.monotonic() + seconds
    while not stop() and (left := end - time.monotonic()) > 0:
        time.sleep(min(left, 0.05))


def _follow_notices(
    client: redis.Redis,
    notices: Notices,
    cap: Capture,
    deadline: float,
    stop: Callable[[], bool],
) -> None:
    """Each batch of notices: the variants named are read again, at the notice's time."""
    next_full = time.monotonic() + SAFETY_POLL_S
    taken: float | None = None  # when the last batch was taken
    while not stop() and (left := deadline - time.monotonic()) > 0:
        entered, ready = _now_ms(), _ready_ms()
        named = notices.wait(min(left, 0.05))
        seen = _now_ms()
        # a batch there at once was buffered while the last one was read: its changes may
        # date from when that one was taken, and the precision says so (a loaded machine);
        # one that woke the capture came up to the time it then waited for a core before
        since = taken if taken is not None and seen - entered < 1.0 else seen - _woke_late(ready)
        taken = seen
        if notices.flushed or time.monotonic() >= next_full:
            notices.flushed = False
            next_full = time.monotonic() + SAFETY_POLL_S
            poll_once(client, cap, seen)
        cks = _variants_named(cap.queue, named)
        if cks:
            _read(client, cap, cks, seen)
            cap.precision_ms = max(cap.precision_ms, _now_ms() - since)


SCHEDSTAT = Path("/proc/thread-self/schedstat")  # Linux: ns on a core, ns ready for one, slices


def _ready_ms() -> float:
    """How long this thread has been ready to run but waiting for a core, in all (0 where the
    kernel does not say)."""
    try:
        return int(SCHEDSTAT.read_text().split()[1]) / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


def _woke_late(ready_before: float) -> float:
    """How late the thread may have woken to a notice, since `_ready_ms()` gave
    `ready_before`: its wait for a core since then. A loaded machine woke it 4 ms after the
    notice came, which a precision counted from the wake-up did not cover."""
    return max(0.0, _ready_ms() - ready_before)


def _variants_named(queue: LiveQueue, named: Iterable[str]) -> list[str]:
    """The concurrency keys whose queue or held sets a batch of notices names."""
    head = queue.variant("")
    found: dict[str, None] = {}
    for name in named:
        if name.startswith(head):
            ck = name[len(head) :]
            for suffix in (HELD_SUFFIX, DEQUEUED_SUFFIX):
                ck = ck.removesuffix(suffix)
            found[ck] = None
    return list(found)


def poll_once(client: redis.Redis, cap: Capture, t_ms: float) -> None:
    """ckIndex, then every variant it names or that holds runs the capture knows of."""
    index = zset_pages(client, [cap.queue.ck_index])[cap.queue.ck_index]
    named = [ck for m, _ in index if (ck := ck_of(cap.queue, m)) is not None]
    _read(client, cap, [*named, *cap.recorder.by_key], t_ms)


def _read(client: redis.Redis, cap: Capture, cks: Iterable[str], t_ms: float) -> None:
    """Read variants `cks`, tell the recorder, and resolve the runs that left them."""
    queued, held = read_variants(client, cap.queue, cks)
    seen = _now_ms()  # a score up to here was no future one when the read saw it
    cap.reads += 1
    recorder = cap.recorder
    new_before = len(recorder.runs)
    left: list[Left] = []
    for ck in queued:
        left += recorder.observe(ck, queued[ck], held[ck], t_ms, seen_ms=seen)
    fresh = list(recorder.runs)[new_before:]
    # their messages: a TTL, the arrival of a run first seen held, and the attempt; polling,
    # also those of the runs held again or queued again, whose attempt tells a retry between
    # two reads
    again = [] if recorder.notices else _held_again(recorder, held, set(fresh))
    again += recorder.take_requeued().difference(again)
    if fresh or again:
        for rid, message in read_messages(client, cap.queue, [*fresh, *again]).items():
            recorder.attempt_read(rid, message.attempt, t_ms)
            if rid not in again:
                _learn(recorder, rid, message.timestamp, message.ttl_expires_at)
    if left:
        _resolve(client, cap, left, t_ms)
    if not any(recorder.by_key.values()) and cap.queue_seen_empty_ms is None:
        cap.queue_seen_empty_ms = int(t_ms)


def _held_again(recorder: Recorder, held: dict[str, set[str]], fresh: set[str]) -> list[str]:
    """The runs held at this read that an earlier read saw: one GET each, bounded by the
    env's concurrency limit (held runs are at most that)."""
    return [rid for ids in held.values() for rid in ids if rid not in fresh]


def _resolve(client: redis.Redis, cap: Capture, left: list[Left], t_ms: float) -> None:
    """Dead-lettered (in the env's dead-letter zset), acked (seen held, its slot freed),
    expired (its TTL passed while queued) or removed (it left the queue without being seen
    held: served and acked between two reads, or deleted; its time not measured)."""
    dead = dead_lettered(client, cap.queue, [each.run_id for each in left])
    for each in left:
        run = cap.recorder.runs[each.run_id]
        outcome: Outcome
        if each.run_id in dead:
            outcome = "dead"
        elif each.was_held:
            outcome = "acked"
        elif run.ttl_ms and t_ms >= run.arrival_ms + run.ttl_ms:
            outcome = "expired"
        else:
            outcome = "removed"
        cap.recorder.gone(each.run_id, t_ms, outcome)
