"""The one snapshot builder: an engine's moment as the app's panes read it, on either clock.

An engine hands over the part of the picture only its clock knows (a `Scene`: which keys, the
order it shows, its discipline's state) and its `Header`; the rest is common. Built from the
engine's public surface only (a protocol here, so this module never imports an engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from ckviz.model.clock import Unit
from ckviz.model.decision import Decision
from ckviz.model.history import History
from ckviz.model.queue import DisciplineState, IndexEntry
from ckviz.model.snapshot import (
    ConsumerService,
    DequeueEvent,
    EventLog,
    HeldRun,
    KeyFigures,
    KeyRow,
    LifeView,
    QueueEvent,
    QueueLog,
    Snapshot,
    ViewRequest,
)


@dataclass(frozen=True, slots=True)
class Header:
    """What a run is: the same for its whole life."""

    scenario: str
    seed: str
    discipline: str
    env_limit: int
    max_count: int
    per_key_cap: int | None
    total_cap: int | None
    score_base: int


@dataclass(frozen=True, slots=True)
class Scene:
    """The part of a picture only the engine's clock knows."""

    step: int  # rounds so far (serve attempts, or calls)
    t: int  # the moment shown (an instant, or the last call's step)
    total_runs: int
    index: tuple[IndexEntry, ...]  # ckIndex as shown
    index_rescored: tuple[IndexEntry, ...]
    keys: tuple[KeyRow, ...]
    held: tuple[HeldRun, ...]
    order: tuple[str, ...]
    next_order: tuple[str, ...]
    rescores: bool
    discipline_state: DisciplineState
    recent: tuple[QueueEvent, ...]
    next_consumer: str | None
    history_at: int  # the history's "now"
    carried: Mapping[str, KeyRow] | None = None
    figures: KeyFigures | None = None
    decision: Decision | None = None  # the last call's (decision.py)
    call_from: int | None = None  # the step clock's: events[call_from:] are its last call's
    called: bool | None = None  # the step clock's: whether its last step made a call
    life: LifeView | None = None  # the run lifecycle's, for the rows carried (life_view.py)
    log: QueueLog | None = None  # every queue event so far (the app's runs keep it)
    caller: str | None = None  # whose dequeue call the last round made (c1..cN; None: none)


class Pictured(Protocol):
    """An engine, as the builder reads it."""

    header: Header
    unit: Unit
    done: bool

    @property
    def events(self) -> list[DequeueEvent]: ...

    @property
    def round_trips(self) -> int: ...

    def service(self) -> tuple[ConsumerService, ...]: ...

    def history_view(self, t: int) -> History | None: ...

    def scene(self, view: ViewRequest) -> Scene: ...


def snapshot_of(engine: Pictured, view: ViewRequest) -> Snapshot:
    """An immutable picture of `engine`'s moment, with the per-key rows `view` asks for."""
    h, s, events = engine.header, engine.scene(view), engine.events
    return Snapshot(
        scenario=h.scenario,
        seed=h.seed,
        discipline=h.discipline,
        step=s.step,
        t=s.t,
        done=engine.done,
        env_limit=h.env_limit,
        max_count=h.max_count,
        per_key_cap=h.per_key_cap,
        total_cap=h.total_cap,
        total_runs=s.total_runs,
        index_read=s.index,
        index_rescored=s.index_rescored,
        keys=s.keys,
        held=s.held,
        discipline_state=s.discipline_state,
        order=s.order,
        next_order=s.next_order,
        rescores=s.rescores,
        events=EventLog(events, len(events)),
        recent=s.recent,
        round_trips=engine.round_trips,
        score_base=h.score_base,
        consumers=engine.service(),
        next_consumer=s.next_consumer,
        history=engine.history_view(s.history_at),
        view=view,
        carried=s.carried,
        figures=s.figures,
        time_unit=engine.unit,
        decision=s.decision,
        call_from=s.call_from,
        called=s.called,
        life=s.life,
        log=s.log,
        caller=s.caller,
    )
