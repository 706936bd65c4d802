"""The virtual-time scripts (SPEC-vtime 5): the calls a trip carries, outside the door.

Two versions share the scripts: `head` (the reference's PR head: idle set, arrival stacking,
2x scan with a window budget, pass 2 always, vtime ack) and `v17` (the version behind the
published table). Their state lives in `B:ckVtime`, `B:ckVtimeFloor` and `B:ckVtimeIdle`,
written only by the Lua; Python reads it through `vtime_state.lua`. The step harness and the
benchmarks call these; the logical-millisecond driver reaches the same scripts through the
vtime discipline's door (the same KEYS and ARGV).
"""

from __future__ import annotations

from collections.abc import Iterable

from ckviz.model.queue import PlannedRun
from ckviz.model.vtime import (
    DEFAULT_ARRIVAL_CAP_MULTIPLIER,
    Version,
    Visit,
    VtimeDequeue,
    VtimeKnobs,
    VtimeState,
    vtime_tail,
)
from ckviz.store.keys import MASTER_MEMBER, KeyLayout, ck_member
from ckviz.store.replies import vtime_dequeue, vtime_state
from ckviz.store.runqueue import DEQUEUE_CONSTANTS, Trip, message_payload, run_keys

__all__ = [
    "DEFAULT_ARRIVAL_CAP_MULTIPLIER",
    "Version",
    "Visit",
    "VtimeDequeue",
    "VtimeKnobs",
    "VtimeState",
    "ack",
    "dequeue",
    "enqueue",
    "read_state",
]


def _state_keys(k: KeyLayout) -> tuple[str, str, str]:
    return (k.ck_vtime, k.ck_vtime_floor, k.ck_vtime_idle)


def enqueue(
    trip: Trip,
    layout: KeyLayout,
    run: PlannedRun,
    timestamp: int,
    version: Version,
    knobs: VtimeKnobs,
) -> int:
    """enqueue.lua plus the version's ckVtime registration."""
    k = layout
    keys = (*run_keys(k, run.run_id, run.key), *_state_keys(k))
    argv = (
        run.run_id,
        timestamp,
        message_payload(run, timestamp),
        ck_member(run.key),
        MASTER_MEMBER,
        *vtime_tail(version, knobs, False),
    )
    return trip.call("vtime_enqueue", keys, argv)


def dequeue(
    trip: Trip,
    layout: KeyLayout,
    env_limit: int,
    max_count: int,
    now: int,
    version: Version,
    knobs: VtimeKnobs,
    trace: bool = True,
) -> int:
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
        *_state_keys(k),
    )
    argv = (
        k.prefix,
        now,
        max_count,
        env_limit,
        *DEQUEUE_CONSTANTS,
        *vtime_tail(version, knobs, trace),
    )
    return trip.call("vtime_dequeue", keys, argv, vtime_dequeue)


def ack(
    trip: Trip, layout: KeyLayout, run_id: str, key: str, version: Version, knobs: VtimeKnobs
) -> int:
    """V17 acks like the baseline (ack.lua); HEAD parks a drained key's tag."""
    if version == "v17":
        return trip.ack(run_id, key)
    k = layout
    keys = (*run_keys(k, run_id, key), *_state_keys(k))
    argv = (run_id, ck_member(key), MASTER_MEMBER, *vtime_tail(version, knobs, False))
    return trip.call("vtime_ack", keys, argv)


def read_state(
    trip: Trip, layout: KeyLayout, listing_limit: int = 1_000_000, keys: Iterable[str] = ()
) -> int:
    """A read-only view of the vtime keys, whole while ckVtime has at most `listing_limit`
    members, else only `keys`'; decodes to a `VtimeState`."""
    argv = (listing_limit, *map(ck_member, keys))
    return trip.call("vtime_state", _state_keys(layout), argv, vtime_state)
