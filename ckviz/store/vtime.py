"""The virtual-time scripts (SPEC-vtime 5): knobs, and the calls a trip carries.

Two versions share the scripts: `head` (the reference's PR head: idle set, arrival stacking,
2x scan with a window budget, pass 2 always, vtime ack) and `v17` (the version behind the
published table). Their state lives in `B:ckVtime`, `B:ckVtimeFloor` and `B:ckVtimeIdle`,
written only by the Lua; Python reads it through `vtime_state.lua`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ckviz.model.arithmetic import BURST_FACTOR, DEFAULT_QUEUE_LIMIT, HELD_SUFFIX, SCAN_FACTOR
from ckviz.model.queue import PlannedRun
from ckviz.store.keys import MASTER_MEMBER, MESSAGE_PREFIX, KeyLayout, ck_member, key_of_member
from ckviz.store.runqueue import DequeuedRun, Trip, dequeued_runs, message_payload

Version = Literal["head", "v17"]
DEFAULT_ARRIVAL_CAP_MULTIPLIER = 2.0**32


@dataclass(frozen=True, slots=True)
class VtimeKnobs:
    """The reference's options, with its defaults."""

    quantum: float = 1.0
    window_multiplier: int = 3
    state_ttl_s: int = 86_400
    idle_max_entries: int = 10_000
    arrival_cap_multiplier: float = DEFAULT_ARRIVAL_CAP_MULTIPLIER

    @property
    def arrival_cap(self) -> float:
        """What the Lua receives: multiplier x quantum (0 registers new keys at the floor)."""
        return self.arrival_cap_multiplier * self.effective_quantum

    @property
    def effective_quantum(self) -> float:
        return self.quantum if self.quantum > 0 else 1.0


@dataclass(frozen=True, slots=True)
class Visit:
    """One candidate a dequeue call looked at: in which pass, and what became of it."""

    passno: int
    key: str
    fate: str  # served, limit, not-ready, empty, expired, orphan, outside-window, ...
    drain: str  # parked, removed or ''
    tag: float | None  # served: the key's new tag


@dataclass(frozen=True, slots=True)
class VtimeDequeue:
    """A vtime dequeue call's reply: the runs served, the trace, the floor it ended with."""

    runs: list[DequeuedRun]
    visits: list[Visit]
    floor: float | None  # None: the env was full, the call did nothing


@dataclass(frozen=True, slots=True)
class VtimeState:
    """ckVtime, its floor and the idle set, as Redis holds them (all of it when `listed`,
    else only the keys asked for)."""

    floor: float | None  # None: no floor key
    listed: bool
    tags: dict[str, float]  # key -> tag, in ckVtime order (the members of this base queue)
    idle: dict[str, float]
    foreign: tuple[str, ...]  # ckVtime members that are not CK queues of this base queue


def _number(text: str) -> float:
    return float(text)


def _pairs(flat: list[Any]) -> zip[tuple[str, float]]:
    return zip(flat[::2], map(float, flat[1::2]), strict=True)


def _decode_dequeue(reply: list[Any] | None) -> VtimeDequeue:
    if not reply:
        return VtimeDequeue([], [], None)
    runs, trace, floor = reply
    visits = [
        Visit(
            int(trace[i]),
            key_of_member(trace[i + 1]),
            trace[i + 2],
            trace[i + 3],
            _number(trace[i + 4]) if trace[i + 4] else None,
        )
        for i in range(0, len(trace), 5)
    ]
    return VtimeDequeue(dequeued_runs(runs), visits, _number(floor))


def _decode_state(reply: list[Any]) -> VtimeState:
    floor, listed, tags, idle = reply
    ours = ck_member("")
    return VtimeState(
        None if floor is None else _number(floor),
        listed == 1,
        {key_of_member(m): t for m, t in _pairs(tags) if m.startswith(ours)},
        {key_of_member(m): t for m, t in _pairs(idle)},
        tuple(m for m in tags[::2] if not m.startswith(ours)),
    )


def _text(value: float) -> str:
    return repr(float(value)) if value != int(value) else str(int(value))


def enqueue(trip: Trip, layout: KeyLayout, run: PlannedRun, timestamp: int,
            version: Version, knobs: VtimeKnobs) -> int:  # fmt: skip
    """enqueue.lua plus the version's ckVtime registration."""
    k = layout
    keys = (
        k.message(run.run_id),
        k.ck_queue(run.key),
        k.env_queue,
        k.ck_index,
        k.master_queue,
        k.ck_held(run.key),
        k.env_held,
        k.ck_vtime,
        k.ck_vtime_floor,
        k.ck_vtime_idle,
    )
    argv = (
        run.run_id,
        timestamp,
        message_payload(run, timestamp),
        ck_member(run.key),
        MASTER_MEMBER,
        version,
        _text(knobs.quantum),
        knobs.state_ttl_s,
        _text(knobs.arrival_cap),
    )
    return trip.call("vtime_enqueue", keys, argv)


def dequeue(trip: Trip, layout: KeyLayout, env_limit: int, max_count: int, now: int,
            version: Version, knobs: VtimeKnobs, trace: bool = True) -> int:  # fmt: skip
    """One two-pass dequeue call; its reply decodes to a `VtimeDequeue` (whose `visits` are
    empty without `trace`)."""
    k = layout
    keys = (
        k.ck_index,
        k.env_held,
        k.env_limit,
        k.queue_limit,
        k.env_queue,
        k.master_queue,
        k.ck_vtime,
        k.ck_vtime_floor,
        k.ck_vtime_idle,
    )
    argv = (
        k.prefix,
        now,
        max_count,
        env_limit,
        BURST_FACTOR,
        MASTER_MEMBER,
        MESSAGE_PREFIX,
        version,
        _text(knobs.quantum),
        knobs.window_multiplier,
        knobs.state_ttl_s,
        knobs.idle_max_entries,
        int(trace),
        SCAN_FACTOR,
        DEFAULT_QUEUE_LIMIT,
        HELD_SUFFIX,
    )
    return trip.call("vtime_dequeue", keys, argv, _decode_dequeue)


def ack(trip: Trip, layout: KeyLayout, run_id: str, key: str, version: Version,
        knobs: VtimeKnobs) -> int:  # fmt: skip
    """V17 acks like the baseline (ack.lua); HEAD parks a drained key's tag."""
    if version == "v17":
        return trip.ack(run_id, key)
    k = layout
    keys = (
        k.message(run_id),
        k.ck_queue(key),
        k.env_queue,
        k.ck_index,
        k.master_queue,
        k.ck_held(key),
        k.env_held,
        k.ck_vtime,
        k.ck_vtime_idle,
    )
    argv = (run_id, ck_member(key), MASTER_MEMBER, knobs.state_ttl_s)
    return trip.call("vtime_ack", keys, argv)


def read_state(
    trip: Trip, layout: KeyLayout, listing_limit: int = 1_000_000, keys: Iterable[str] = ()
) -> int:
    """A read-only view of the vtime keys, whole while ckVtime has at most `listing_limit`
    members, else only `keys`'; decodes to a `VtimeState`."""
    names = (layout.ck_vtime, layout.ck_vtime_floor, layout.ck_vtime_idle)
    argv = (listing_limit, *map(ck_member, keys))
    return trip.call("vtime_state", names, argv, _decode_state)
