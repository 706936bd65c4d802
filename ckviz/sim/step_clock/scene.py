"""What only the step clock knows of its moment (sim/engine/snapshot.py builds the rest): one
picture per call.

Times are in steps (a step stands where the millisecond driver has a millisecond): a run
"arrives" at the step it was enqueued before and is served at the step of its call. A
discipline in Redis shows its state as the call's trip read it, and the call's own report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ckviz.disciplines.base import OnSteps
from ckviz.model.clock import T0
from ckviz.model.decision import Decision
from ckviz.model.queue import DisciplineState, IndexEntry, Shown
from ckviz.model.snapshot import KeyRow, LoggedEvent, QueueEvent, QueueLog, ViewRequest
from ckviz.model.steps import StepScenario
from ckviz.sim.engine.decision import call_decision
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.life_commands import PlainRuns
from ckviz.sim.engine.life_view import life_view
from ckviz.sim.engine.serving import Decided
from ckviz.sim.engine.snapshot import Scene
from ckviz.sim.step_clock.calls import CallRecord
from ckviz.store.runqueue import RunQueue

RECENT_EVENTS = 200  # the Events pane's history, as many as the millisecond driver keeps


class StepEngine(Protocol):
    """The step harness as its scene reads it."""

    t: int
    scenario: StepScenario
    discipline: str
    max_count: int
    done: bool
    queue: RunQueue
    ledger: Ledger
    calls: list[CallRecord]
    in_redis: OnSteps | None
    life: PlainRuns  # the run lifecycle's books, when the scenario has one

    def next_consumer(self) -> str: ...

    @property
    def recent(
        self,
    ) -> Sequence[QueueEvent]: ...  # the Events pane's (runner.py: which)

    @property
    def whole(self) -> list[LoggedEvent] | None: ...  # every event (the app's runs keep it)


def step_scene(runner: StepEngine, view: ViewRequest) -> Scene:
    """Where `runner` stands after its last call. A step scenario has few keys: its
    snapshot carries every key's row, whatever the view asks for."""
    ledger = runner.ledger
    last = runner.calls[-1] if runner.calls else None
    rows = tuple(
        KeyRow(key, 1.0, len(b.queued), 0, b.dequeued, b.held, _head(ledger, key), b.wait_sum_ms)
        for key, b in ledger.books.items()
    )
    events = ledger.events
    recent = tuple(runner.recent)  # the history of the calls, not the last one's
    index = tuple(runner.queue.peek_index(view.index_limit)[0])  # a Lua pass may read it
    order = _tag_order(runner, index)
    state = _state(runner)
    return Scene(
        step=len(runner.calls),
        t=last.step if last else 0,
        total_runs=ledger.total_runs,
        index=index,
        index_rescored=(),
        keys=rows,
        held=ledger.held_runs(),
        order=order,
        next_order=() if runner.done else order,
        rescores=False,
        discipline_state=state,
        recent=recent,
        log=None if runner.whole is None else QueueLog(runner.whole, len(runner.whole)),
        life=life_view(runner.life, ledger, runner.t, ledger.books),
        next_consumer=None if runner.done else runner.next_consumer(),
        history_at=runner.t,
        decision=_decision(runner, index, state),
        call_from=len(events) - (len(last.served) if last else 0),
        called=last.called if last else None,
        caller=last.consumer if last is not None and last.called else None,
    )


def _decision(
    runner: StepEngine, index: Sequence[IndexEntry], state: DisciplineState
) -> Decision | None:
    """The last call's: a discipline in Redis reports it; the Lua's own order is walked."""
    last = runner.calls[-1] if runner.calls else None
    if last is None or not last.called:
        return None
    if runner.in_redis is not None and last.report is not None:  # (a mix's baseline: none)
        return runner.in_redis.decision(state)
    decided = Decided(0, [], list(zip(last.served, last.heads, strict=True)))
    books = runner.ledger.books
    held = (lambda key: books[key].held if key in books else 0, runner.ledger.held_count)
    limits = (runner.scenario.env_limit, runner.max_count, None, None)
    return call_decision(decided, index, T0, held, limits)


def _head(ledger: Ledger, key: str) -> float | None:
    """The key's oldest queued run as a row's head: its arrival step over the clock's base, so
    its age (and the key's wait so far) counts the steps it has waited, as in milliseconds."""
    arrival = ledger.oldest_arrival(key)
    return None if arrival is None else float(T0 + arrival)


def _tag_order(runner: StepEngine, index: Sequence[IndexEntry]) -> tuple[str, ...]:
    """The keys with runs left, in the discipline's own order when it keeps one in Redis;
    else in ckIndex's, the order the Lua's own scan walks (lowest score first), any key past
    the entries read after them."""
    left = [k for k, b in runner.ledger.books.items() if b.queued]
    if runner.in_redis is not None:
        return runner.in_redis.order(left)
    waiting = set(left)
    scanned = dict.fromkeys(e.key for e in index if e.key in waiting)  # a key's queues: once
    return (*scanned, *(k for k in left if k not in scanned))


def _state(runner: StepEngine) -> DisciplineState:
    fields: list[tuple[str, Shown]] = [("harness", "steps"), ("max count", runner.max_count)]
    if runner.in_redis is None:
        return DisciplineState(runner.discipline, (*fields, ("order", "oldest head first")))
    called = [c for c in runner.calls if c.called]
    last = called[-1] if called else None
    # a step that made no call (the env full) still shows the last call's passes, as earlier
    earlier = last.step if last is not None and runner.calls[-1] is not last else None
    return runner.in_redis.shown(fields, last.report if last else None, len(called), earlier)
