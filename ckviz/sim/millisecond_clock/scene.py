"""What only the millisecond clock knows of its moment (sim/engine/snapshot.py builds the rest):
the keys a view asks for from the books, ckIndex as shown, the order and whose turn is next.
Read from the driver's public surface (a protocol here: the driver imports this module)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ckviz.model.decision import Decision
from ckviz.model.queue import IndexEntry
from ckviz.model.snapshot import ViewRequest
from ckviz.sim.engine.consumers import Consumer, Turns
from ckviz.sim.engine.decision import call_decision, latest
from ckviz.sim.engine.ledger import Ledger
from ckviz.sim.engine.life_commands import PlainRuns
from ckviz.sim.engine.life_view import life_view
from ckviz.sim.engine.serving import InRedis, Queued, Rescore, ServePlan
from ckviz.sim.engine.snapshot import Scene
from ckviz.sim.engine.view import KeyView
from ckviz.sim.millisecond_clock.event_log import EventLog
from ckviz.sim.millisecond_clock.outbox import Outbox


class Limits(Protocol):
    """The driver's config, as the why reads it."""

    @property
    def env_limit(self) -> int: ...
    @property
    def max_count(self) -> int: ...
    @property
    def per_key_cap(self) -> int | None: ...
    @property
    def total_cap(self) -> int | None: ...


class MsDriver(Protocol):
    """The millisecond driver as its scene reads it."""

    t: int
    step_count: int
    done: bool
    ledger: Ledger
    life: PlainRuns  # its runs, plain or with the scenario's lifecycle
    key_view: KeyView
    plan: ServePlan
    turns: Turns
    score_base: int
    instant_open: bool  # released and arrived at `t`, now serving
    outbox: Outbox  # ckIndex as a rescoring plan last ranked it, or peeked at
    rescore: Rescore | None  # what the last serve attempt wrote into ckIndex, if anything
    last_rescore: Rescore | None  # the last order written
    caller: Consumer | None  # whose dequeue call the last serve attempt made (None: none)

    @property
    def queued(self) -> Queued: ...  # the keys with runs queued, from the books

    @property
    def recent(self) -> EventLog: ...

    @property
    def config(self) -> Limits: ...


def index_shown(
    driver: MsDriver, limit: int | None, turn: ServePlan
) -> tuple[Sequence[IndexEntry], int]:
    """ckIndex for a picture, and its size: as a rescoring plan last ranked it, else Redis's
    own (its first `limit` entries are enough to preview the Lua's order, or a discipline's in
    Redis, which ranks the books' queued keys: at 100,000 keys a whole read took 0.2-0.5 s)."""
    if driver.plan.rescores:
        ranked = driver.outbox.index_read
        return ranked, len(ranked)
    whole = driver.plan.ranks_index or turn.ranks_index
    return driver.outbox.peek.read(None if whole else limit)


def shown_order(driver: MsDriver, upcoming: tuple[str, ...], limit: int | None) -> tuple[str, ...]:
    """A rescoring plan's last written order, else what the Lua will serve next (its first
    `limit` keys)."""
    if not driver.plan.rescores:
        return upcoming
    return () if driver.last_rescore is None else driver.last_rescore.order(limit)


def next_consumer(driver: MsDriver) -> Consumer:
    """Whose turn the next dequeue is: mid-instant the current one's, else whoever opens the
    instant the clock stands at (the pane shows that consumer's discipline state)."""
    turns = driver.turns
    return turns.current if driver.instant_open else turns.first_at(driver.t)


def driver_scene(driver: MsDriver, view: ViewRequest) -> Scene:
    """The driver's moment, with the per-key rows `view` asks for."""
    base, limit = driver.score_base, view.index_limit
    turn = next_consumer(driver)
    index, index_size = index_shown(driver, limit, turn.plan)
    picked = driver.key_view.pick(view, driver.t, base, index_size)
    ledger = driver.ledger
    upcoming = turn.plan.next_order(index, base + driver.t, limit, driver.queued)
    index = index[:limit]
    rows = driver.key_view.carried(picked.keys, view.also, (e.key for e in index), upcoming)
    full = view.limit is None and view.only is None and limit is None
    rescore = driver.rescore
    return Scene(
        step=driver.step_count,
        t=driver.t,
        total_runs=ledger.total_runs,
        index=tuple(index),
        index_rescored=() if rescore is None else rescore.entries(limit),
        keys=picked.keys,
        held=ledger.held_runs(),
        order=shown_order(driver, upcoming, limit),
        next_order=() if driver.done else upcoming,
        rescores=driver.plan.rescores,
        discipline_state=turn.discipline.state(None if full else rows),
        recent=driver.recent.events(),
        log=driver.recent.whole(),
        next_consumer=None if driver.done else turn.name,
        history_at=driver.t,
        carried=rows,
        figures=picked.figures,
        decision=_decision(driver, index),
        life=life_view(driver.life, ledger, driver.t, rows),
        caller=None if driver.caller is None else driver.caller.name,
    )


def _decision(driver: MsDriver, index: Sequence[IndexEntry]) -> Decision | None:
    """The last call's, by its caller's plan (in a mixed rollout, a baseline call is the Lua's
    walk, not the last call of the discipline in Redis): a discipline in Redis reports it; the
    others' are walked here."""
    caller = driver.caller
    plan = driver.plan if caller is None else caller.plan
    if isinstance(plan, InRedis):
        return plan.discipline.decision()
    c, ledger = driver.config, driver.ledger
    books = ledger.books
    held = (lambda key: books[key].held if key in books else 0, ledger.held_count)
    limits = (c.env_limit, c.max_count, c.per_key_cap, c.total_cap)
    plans = [consumer.plan for consumer in driver.turns.consumers] if caller is None else [plan]
    return call_decision(latest(plans), index, driver.score_base, held, limits)
