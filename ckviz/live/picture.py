"""One refresh of a live queue, as the panes and `watch --once --json` show it (`LivePicture`):
plain frozen values, made by `reading.read_picture`, JSON-able with `to_json()`.

Everything here was read from the server in one refresh (SPEC-live 3) or worked out from
those reads (the next order); nothing is kept between refreshes but what the caller keeps.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ckviz.live.names import LiveQueue
from ckviz.model.decision import Candidate, Decision
from ckviz.model.queue import Shown

PICTURE_VERSION = 1  # the JSON's `picture_version`: bumped when a field changes meaning


@dataclass(frozen=True, slots=True)
class VariantRow:
    """One CK variant on screen: `Q:ck:C`."""

    key: str  # the concurrency key C
    index_score: float | None  # its ckIndex score (None: not in the index's screenful)
    depth: int  # runs queued (ZCARD V)
    head_run: str | None  # the run at its head (lowest score), None when empty
    head_score: float | None  # that run's score: its timestamp (ms); future = delayed
    head_age_ms: float | None  # read time - head score (negative: not due yet)
    held: int  # runs it holds (SCARD V:currentConcurrency)
    tag: float | None = None  # its vtime tag (None: no tag, or no vtime)
    # the head's message, read when the head is due: its TTL (None: none), its attempt
    # (0: first; None: not read), and whether it was there (a head without one is an orphan)
    head_expires_ms: float | None = None
    head_attempt: int | None = None
    head_message: bool = True


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits the dequeue reads, as stored (None: the key is absent) and as it uses them."""

    env_limit: int | None  # GET {env}:concurrency
    env_burst: float | None  # GET {env}:concurrencyBurstFactor
    queue_limit: int | None  # GET Q:concurrency
    env_capacity: int  # floor(env limit x burst): what the env may hold
    variant_limit: int  # min(queue limit, env limit): what one variant may hold
    assumed: tuple[str, ...] = ()  # what was taken as a default because its key is absent


@dataclass(frozen=True, slots=True)
class VtimeRead:
    """vtime's state when `Q:ckVtime` exists: the lowest tags, the floor, the idle set."""

    tags: tuple[tuple[str, float], ...]  # (concurrency key, tag), lowest first, bounded
    tags_total: int
    floor: float | None  # None: never written (no dequeue yet)
    idle: tuple[tuple[str, float], ...]  # parked tags of drained variants, bounded
    idle_total: int


@dataclass(frozen=True, slots=True)
class NextPick:
    """One candidate of the next dequeue, in the order the dequeue looks at them: what it
    would do with it (`fate`, model/decision.py's FATES) and why."""

    key: str
    fate: str  # served, limit, not-ready, empty, outside-window, batch-full
    run_id: str | None  # the run it would take (served only)
    rank: tuple[tuple[str, Shown], ...]  # what the discipline ranks it by, lower first
    why: str


@dataclass(frozen=True, slots=True)
class ReadCost:
    """What the refresh cost the server, from INFO commandstats before and after, or (between
    measurements: ckviz.live.cost.Meter) its commands priced at the usec per call measured
    `measured_ago` refreshes before."""

    server_us: float  # the refresh's own commands' usec (others' interleaved ones taken out)
    commands: int  # commands sent
    round_trips: int
    slowest_us: float  # the costliest command kind's usec per call
    others_calls: int  # calls of the same kinds by other clients meanwhile (0: exact)
    wall_ms: float  # the refresh as the client timed it (network included)
    measured_ago: int = 0  # 0: measured around this refresh; n: priced from n refreshes before

    @property
    def measured(self) -> bool:
        return self.measured_ago == 0

    @property
    def exact(self) -> bool:
        """Measured, with no other client's calls of its kinds meanwhile."""
        return self.measured and self.others_calls == 0


@dataclass(frozen=True, slots=True)
class LivePicture:
    """One refresh of one live queue."""

    queue: LiveQueue
    read_at_ms: float  # the server's time when the read began (ms since the epoch)
    span_ms: float  # server time from the first read to the last
    discipline: str  # "baseline", or "vtime" when Q:ckVtime exists and is not stale
    discipline_from: str  # what the discipline was told from (ckviz.live.flag)
    index_total: int  # ckIndex members (variants with runs queued)
    variants: tuple[VariantRow, ...]  # a screenful: ckIndex order, then vtime's scan
    length_counter: int | None  # Q:lengthCounter as stored (None: absent)
    running_counter: int | None  # Q:runningCounter
    env_held: int
    queue_held: int
    limits: Limits
    vtime: VtimeRead | None
    next_order: tuple[NextPick, ...]
    order_note: str  # why the next dequeue takes nothing ("": it takes what next_order says)
    batch: int  # the dequeue's max count the next order was worked out for
    torn: tuple[str, ...]  # why the picture may not be one instant's (empty: consistent)
    cost: ReadCost

    @property
    def empty(self) -> bool:
        """Nothing queued (the queue drained, or its keys vanished)."""
        return self.index_total == 0

    def decision(self) -> Decision:
        """The next order as the app's why-lines read a simulated call's."""
        return Decision(tuple(Candidate(p.key, p.rank, p.fate) for p in self.next_order))

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["queue"] = {**data["queue"], "base": self.queue.base}
        data["cost"]["exact"] = self.cost.exact
        data["empty"] = self.empty
        return {"picture_version": PICTURE_VERSION, **data}


def picture_schema() -> dict[str, Any]:
    """The JSON Schema of `to_json()`'s output (schemas/live-picture-v1.json): the dataclasses'
    fields, and what `to_json` adds (the version, the queue's base, the cost's exactness and
    whether the queue is empty)."""
    from pydantic import TypeAdapter  # only the schema script and its test need it

    schema: dict[str, Any] = TypeAdapter(LivePicture).json_schema(mode="serialization")
    _add(schema, "picture_version", {"const": PICTURE_VERSION}, first=True)
    _add(schema, "empty", {"type": "boolean"})
    _add(schema["$defs"]["LiveQueue"], "base", {"type": "string"})
    _add(schema["$defs"]["ReadCost"], "exact", {"type": "boolean"})
    return schema


def _add(schema: dict[str, Any], name: str, field: dict[str, Any], first: bool = False) -> None:
    """A required property `to_json` adds to an object's schema."""
    properties = schema["properties"]
    schema["properties"] = {name: field, **properties} if first else {**properties, name: field}
    schema["required"] = [name, *schema["required"]] if first else [*schema["required"], name]
    schema["additionalProperties"] = False
