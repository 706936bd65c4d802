"""A step-harness run as the app's panes read it: one `Snapshot` per call.

Times are in steps (a step stands where the millisecond driver has a millisecond): a run
"arrives" at the step it was enqueued before and is served at the step of its call. The vtime
state is what the call's trip read back, and the passes are the call's own trace.
"""

from __future__ import annotations

from ckviz.disciplines.vtime import VtimeView
from ckviz.model.clock import T0
from ckviz.model.queue import DisciplineState, Shown
from ckviz.model.snapshot import (
    FULL_VIEW,
    EventLog,
    HeldRun,
    KeyRow,
    QueueEvent,
    Snapshot,
    ViewRequest,
)
from ckviz.sim.steps import StepRunner


def step_snapshot(runner: StepRunner, view: ViewRequest = FULL_VIEW) -> Snapshot:
    """Where `runner` stands after its last call. A step scenario has few keys: its
    snapshot carries every key's row, whatever the view asks for."""
    scenario = runner.scenario
    last = runner.calls[-1] if runner.calls else None
    served_per_key: dict[str, int] = {}
    waited: dict[str, int] = {}  # steps between a run's arrival and its serve, summed per key
    for event in runner.serves:
        served_per_key[event.key] = served_per_key.get(event.key, 0) + 1
        waited[event.key] = waited.get(event.key, 0) + event.wait_ms
    rows = tuple(
        KeyRow(
            key,
            1.0,
            left,
            0,
            served_per_key.get(key, 0),
            runner.held_of(key),
            None,
            waited.get(key, 0),
        )
        for key, left in runner.remaining.items()
    )
    hold = scenario.harness.hold_steps
    held = tuple(HeldRun(r.key, r.run_id, r.served_at + hold) for r in runner.in_flight)
    recent = tuple(
        QueueEvent("dequeue", e.dequeued_ms, e.key, e.run_id)
        for e in runner.serves[len(runner.serves) - len(last.served) if last else 0 :]
    )
    order = _tag_order(runner)
    return Snapshot(
        scenario=scenario.name,
        seed="",
        discipline=runner.discipline,
        step=len(runner.calls),
        t=last.step if last else 0,
        done=runner.done,
        env_limit=scenario.env_limit,
        max_count=runner.max_count,
        per_key_cap=None,
        total_cap=None,
        total_runs=runner.total,
        index_read=tuple(runner.queue.peek_index(view.index_limit)[0]),  # vtime's pass 2 reads it
        index_rescored=(),
        keys=rows,
        held=held,
        order=order,
        next_order=() if runner.done else order,
        rescores=False,
        discipline_state=_state(runner),
        events=EventLog(runner.serves, len(runner.serves)),
        recent=recent,
        round_trips=runner.round_trips,
        score_base=T0,
        history=None if runner.history is None else runner.history.view(runner.step),
        consumers=runner.service(),
        next_consumer=None if runner.done else runner.next_consumer(),
        view=view,
        time_unit="step",
    )


def _tag_order(runner: StepRunner) -> tuple[str, ...]:
    """vtime: the keys with runs left, lowest tag first, ties by name (pass 1's order)."""
    state = runner.state
    left = [k for k, n in runner.remaining.items() if n]
    if runner.version is None or state is None:
        return tuple(left)
    floor = state.floor or 0.0
    return tuple(sorted(left, key=lambda k: (max(state.tags.get(k, floor), floor), k)))


def _state(runner: StepRunner) -> DisciplineState:
    last = runner.calls[-1] if runner.calls else None
    fields: list[tuple[str, Shown]] = [("harness", "steps"), ("max count", runner.max_count)]
    if runner.version is None:
        return DisciplineState(runner.discipline, (*fields, ("order", "oldest head first")))
    state = runner.state
    view = VtimeView(
        runner.version,
        state,
        last.visits if last else (),
        last.floor if last else None,
        traced=True,
        calls=sum(1 for c in runner.calls if c.called),
    )
    per_key = tuple((k, (("tag", t),)) for k, t in state.tags.items()) if state else ()
    fields.append(("floor", (state.floor or 0.0) if state else 0.0))
    return DisciplineState(runner.discipline, tuple(fields), per_key, view)
