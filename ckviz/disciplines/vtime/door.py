"""The vtime door: its scripts, its three state keys, its ARGV tail, and which version a
discipline name means.

Two versions share the scripts: `head` (the reference's PR head: idle set, arrival stacking,
2x scan with a window budget, pass 2 always, vtime ack) and `v17` (the version behind the
published table), which acks with the store's own ack.lua. Their state lives in `B:ckVtime`,
`B:ckVtimeFloor` and `B:ckVtimeIdle`, written only by the Lua; Python reads it through
`state.lua`. Every harness (the logical-millisecond driver, the step harness, stress) reaches
the scripts through this door: a `RunQueue` opened with it runs `Trip.enqueue`, `dequeue`,
`ack` and `read_state` with these KEYS and ARGV, and the lifecycle's `nack`, `dead_letter`,
`expire_ttl` and enqueue with a TTL or a fast-path offer (docs/lifecycle.md).
"""

from __future__ import annotations

from typing import NamedTuple

from ckviz.disciplines.base import Tuning
from ckviz.disciplines.vtime.knobs import Version, VtimeKnobs, knobs_of
from ckviz.disciplines.vtime.replies import join_state_pages, vtime_dequeue, vtime_state
from ckviz.store.keys import KeyLayout
from ckviz.store.scripts import LIFECYCLE, LIFECYCLE_LIB, RUN_QUEUE, Door, load_scripts

# enqueue, dequeue, ack, state, and the lifecycle's nack, dead_letter, enqueue_ttl, expire_ttl
# (each with the lifecycle's lib, whose bodies they share, and this folder's in front)
SCRIPTS = load_scripts("ckviz.disciplines.vtime", libs=(LIFECYCLE_LIB,))
# the discipline names that run the vtime scripts, and the version each means
VERSIONS: dict[str, Version] = {"vtime": "head", "vtime-v17": "v17"}
STATE_KEYS = ("ckVtime", "ckVtimeFloor", "ckVtimeIdle")  # each `B:<name>`, in the scripts' order


def version_of(name: str) -> Version | None:
    """The vtime version a discipline name means (None: not a vtime discipline)."""
    return VERSIONS.get(name)


class StateKeys(NamedTuple):
    """The vtime keys of one namespace, in the order the scripts take them after their KEYS."""

    tags: str  # B:ckVtime, key -> tag
    floor: str  # B:ckVtimeFloor
    idle: str  # B:ckVtimeIdle (HEAD), drained key -> parked tag


def state_keys(layout: KeyLayout) -> StateKeys:
    """Where the vtime state of `layout`'s namespace lives."""
    return StateKeys(*(layout.base_key(name) for name in STATE_KEYS))


def number_text(value: float) -> str:
    """A number as the Lua reads it back exactly (integers without a decimal point)."""
    return repr(float(value)) if value != int(value) else str(int(value))


def vtime_tail(version: Version, knobs: VtimeKnobs, trace: bool) -> tuple[str | int, ...]:
    """The ARGV every vtime script takes after its usual ones (each reads what it needs)."""
    return (
        version,
        number_text(knobs.quantum),
        knobs.window,
        knobs.state_ttl_s,
        knobs.idle_max_entries,
        number_text(knobs.arrival_cap_tags),
        int(trace),
    )


def vtime_door(version: Version, tuning: Tuning) -> Door:
    """The vtime scripts, the three state keys and the knobs. Both versions register on a
    nack and on a slow-path enqueue with a TTL; only HEAD drains a key's tag on the ack, the
    dead-letter and the TTL sweep (V17 runs the store's ack and the flag-off dead-letter and
    sweep, which never touch a vtime key)."""
    head = version == "head"
    return Door(
        enqueue=SCRIPTS["enqueue"],
        dequeue=SCRIPTS["dequeue"],
        ack=SCRIPTS["ack"] if head else RUN_QUEUE["ack"],
        nack=SCRIPTS["nack"],
        dead_letter=SCRIPTS["dead_letter"] if head else LIFECYCLE["dead_letter"],
        enqueue_ttl=SCRIPTS["enqueue_ttl"],
        expire_ttl=SCRIPTS["expire_ttl"] if head else LIFECYCLE["expire_ttl"],
        state_keys=STATE_KEYS,
        argv=vtime_tail(version, knobs_of(tuning.knobs), tuning.trace),
        reads=SCRIPTS["state"],
        dequeue_reply=vtime_dequeue,
        read_reply=vtime_state,
        read_join=join_state_pages,
    )
