"""The picture of a millisecond driver's moment that the app shows (step_snapshot.py is the
step harness's): only what the driver's public surface and its books say, nothing stepped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ckviz.model.snapshot import EventLog, HeldRun, Snapshot, ViewRequest

if TYPE_CHECKING:
    from ckviz.sim.driver import Driver


def driver_snapshot(driver: Driver, view: ViewRequest) -> Snapshot:
    """An immutable picture of this moment, with the per-key rows `view` asks for."""
    cfg, base = driver.config, driver.score_base
    limit = view.index_limit
    index, index_size = driver.index_shown(limit)
    picked = driver.key_view.pick(view, driver.t, base, index_size)
    ledger = driver.ledger
    held = tuple(
        HeldRun(run.key, run.run_id, release)
        for release, _, run in sorted(ledger.releases, key=lambda r: (r[0], r[1]))
    )
    turn = driver.next_consumer()
    upcoming = turn.plan.next_order(index, base + driver.t)[:limit]
    index = index[:limit]
    rows = driver.key_view.carried(picked.keys, view.also, (e.key for e in index), upcoming)
    full = view.limit is None and view.only is None and limit is None
    rescore = driver.rescore
    return Snapshot(
        scenario=cfg.scenario,
        seed=cfg.seed,
        discipline=driver.discipline.name,
        step=driver.step_count,
        t=driver.t,
        done=driver.done,
        env_limit=cfg.env_limit,
        max_count=cfg.max_count,
        per_key_cap=cfg.per_key_cap,
        total_cap=cfg.total_cap,
        total_runs=ledger.total_runs,
        index_read=tuple(index),
        index_rescored=() if rescore is None else rescore.entries(limit),
        keys=picked.keys,
        held=held,
        discipline_state=turn.discipline.state(None if full else rows),
        order=driver.shown_order(upcoming)[:limit],
        next_order=() if driver.done else upcoming,
        rescores=driver.plan.rescores,
        events=EventLog(driver.events, len(driver.events)),
        recent=tuple(driver.recent),
        round_trips=driver.round_trips,
        score_base=base,
        consumers=driver.turns.service(),
        next_consumer=None if driver.done else turn.name,
        history=None if driver.history is None else driver.history.view(driver.t),
        view=view,
        carried=rows,
        figures=picked.figures,
    )
