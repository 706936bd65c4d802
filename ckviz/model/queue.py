"""Plain values that cross the line between the Redis layer and the disciplines."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import NamedTuple


class IndexEntry(NamedTuple):
    """One ckIndex member as read: the CK queue, its concurrency key, and the score Redis holds.

    After a rescore the score is the rescored value, not the CK queue's true head. A named
    tuple, not a dataclass: a rescoring discipline's trip builds K of them per read.
    """

    member: str
    key: str
    score: float


# Builds an IndexEntry from a (member, key, score) tuple without a Python-level call: a
# rescoring discipline's trip makes K of them per serve attempt.
index_entry = partial(tuple.__new__, IndexEntry)

Shown = str | float  # a state value; a pane decides how a number reads


@dataclass(frozen=True, slots=True)
class DequeuedRun:
    """A run a dequeue script handed out."""

    run_id: str
    score: float
    key: str


@dataclass(frozen=True, slots=True)
class DisciplineState:
    """What a discipline shows of itself: global fields and, per key, labelled values, plus
    `detail`: a richer picture a pane of its own may draw (the vtime state, for vtime)."""

    name: str
    fields: tuple[tuple[str, Shown], ...] = ()
    per_key: tuple[tuple[str, tuple[tuple[str, Shown], ...]], ...] = ()
    detail: object = None


@dataclass(frozen=True, slots=True)
class Door:
    """How a discipline's runs reach Redis: the scripts for enqueue, dequeue and ack (by Lua
    file name), the discipline's own state keys (each `B:<name>` under the base queue, added
    after the scripts' usual KEYS), its own ARGV (after the usual ARGV: a quantum, a TTL...)
    and whether the driver rescores ckIndex before a dequeue. A discipline whose state lives
    in Redis may name `reads`: a read-only script over its state keys (ARGV: a listing limit,
    then the ckIndex members asked for) that rides at the end of each checked trip."""

    enqueue: str = "enqueue"
    dequeue: str = "dequeue"
    ack: str = "ack"
    state_keys: tuple[str, ...] = ()
    argv: tuple[str | int, ...] = ()
    rescores: bool = False  # client side: read ckIndex, order it in Python, write the order
    reads: str = ""


LUA_ORDER = Door()  # the dequeue script's own order: lowest ckIndex score first
RESCORED = Door(rescores=True)


@dataclass(frozen=True, slots=True)
class PlannedRun:
    """One run of a workload: who sends it, when it arrives and how long it holds its slot."""

    key: str
    run_id: str
    arrival_ms: int
    hold_ms: int


def js_string_order(text: str) -> bytes:
    """A sort key that orders strings as JavaScript's `<` does (by UTF-16 code unit)."""
    return text.encode("utf-16-be", "surrogatepass")


def run_id(key: str, index: int) -> str:
    """The reference's run id: `<key>~0#<index>` (ties in a CK queue break on these bytes)."""
    return f"{key}~0#{index}"
