"""Issue 22: the app shows the run lifecycle on the real server: per key the runs waiting for
their retry time and when the first is due, the expired and dead-lettered counts, and the TTL
queue's next expiries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from ckviz.model.snapshot import LifeView, Snapshot
from ckviz.tui.app import CkvizApp
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import SIZE, press, settle, type_into

MakeApp = Callable[..., CkvizApp]


def shown(app: CkvizApp) -> tuple[Snapshot, LifeView, str]:
    current = app.player.recording.current
    assert current is not None
    snapshot = current.snapshots[0]
    assert snapshot.life is not None, "a lifecycle scenario's snapshot carries its lifecycle"
    return snapshot, snapshot.life, app.screen.query_one(KeyQueuesPane).plain


def row_of(table: str, key: str) -> list[str]:
    (line,) = [line for line in table.splitlines() if line.split()[:1] == [key]]
    return line.split()


async def go_to(pilot: Pilot[Any], t: int) -> None:
    await pilot.press("colon")
    await type_into(pilot, str(t))


@pytest.mark.slow
async def test_a_retry_storm_shows_each_retry_and_when_it_is_due(make_app: MakeApp) -> None:
    app = make_app("life_retry_storm", "vtime")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(20):
            await press(pilot, "n")
            snapshot, life, table = shown(app)
            retrying = {key: row for key, row in life.keys.items() if row.waiting}
            if retrying:
                break
        assert retrying, "a storm key's run should be waiting for its retry by now"
        nacked = {e.key for e in snapshot.recent if e.kind == "nack"}
        assert set(retrying) <= nacked
        assert "retry" in table.splitlines()[0] and "dead" in table.splitlines()[0]
        key, row = min(retrying.items(), key=lambda kv: (kv[1].next_due or 0, kv[0]))
        assert row.next_due is not None and row.next_due > snapshot.t  # in the future
        assert row.retries == 1
        cells = row_of(table, key)
        assert cells[-4:] == ["1", f"@{row.next_due}ms", "0", "0"]
        # Redis holds the retry back until its time: its next serve is at or after it
        await go_to(pilot, row.next_due + 30)
        snapshot, life, table = shown(app)
        again = [e for e in snapshot.events if e.key == key]
        assert len(again) >= 2 and again[1].dequeued_ms >= row.next_due
        assert again[1].arrival_ms == row.next_due  # its wait counts from the retry's time


async def test_ttl_expiries_and_the_ttl_queue_are_shown(make_app: MakeApp) -> None:
    app = make_app("life_ttl_light", "baseline")  # age order: the light key's runs expire
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await go_to(pilot, 900)
        snapshot, life, table = shown(app)
        light = life.keys["light"]
        assert light.expired >= 1 and life.keys["backlog"].expired == 0
        assert row_of(table, "light")[-3:] == [str(light.waiting), str(light.expired), "0"]
        (ttl,) = [line for line in table.splitlines() if line.startswith("TTL")]
        assert f"TTL {life.ttl_pending} pending" in ttl
        assert life.next_expiries and life.next_sweep is not None and life.next_sweep > snapshot.t
        soonest = ", ".join(f"{k} @{at}ms" for k, _, at in life.next_expiries)
        assert f"next {soonest} · sweep @{life.next_sweep}ms" in ttl
        assert [at for *_, at in life.next_expiries] == sorted(at for *_, at in life.next_expiries)


@pytest.mark.slow
async def test_dead_letters_are_counted_per_key(make_app: MakeApp) -> None:
    app = make_app("life_dead_letter", "vtime")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await go_to(pilot, 1500)
        _, life, table = shown(app)
        doomed = life.keys["doomed"]
        assert doomed.dead_lettered >= 1 and doomed.retries >= 2 * doomed.dead_lettered
        assert row_of(table, "doomed")[-1] == str(doomed.dead_lettered)
        assert row_of(table, "backlog")[-2:] == ["0", "0"]
        assert "TTL" not in table  # no run has a TTL: no TTL line


async def test_runs_without_a_lifecycle_show_no_lifecycle_columns(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        current = app.player.recording.current
        assert current is not None and current.snapshots[0].life is None
        header = app.screen.query_one(KeyQueuesPane).plain.splitlines()[0]
        assert "retry" not in header and "expired" not in header


async def test_a_step_scenarios_retry_storm_shows_its_retry_times_in_steps(
    make_app: MakeApp,
) -> None:
    """The step clock's frames carry the lifecycle view: a storm key's nacked run waits for
    its retry step, and the table says which step that is."""
    app = make_app("life_micro_storm", "vtime")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(12):
            await press(pilot, "n")
            snapshot, life, table = shown(app)
            retrying = {key: row for key, row in life.keys.items() if row.waiting}
            if retrying:
                break
        assert retrying, "a storm key's run should be waiting for its retry by now"
        assert {e.key for e in snapshot.recent if e.kind == "nack"} >= set(retrying)
        key, row = min(retrying.items())
        assert row.next_due is not None and row.next_due > snapshot.t
        (due,) = [cell for cell in row_of(table, key) if cell.startswith("@")]
        assert due.startswith(f"@{row.next_due}") and "ms" not in due  # steps, not ms
