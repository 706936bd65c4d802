"""The status line's fairness is the demand-aware one (docs/fairness.md) over the dequeues
the per-key table beside it counts: every one up to the frame's moment, each key's queued runs
counted as asked for (issue 23 item 4: ck_skew's sfq lane read `worst 0.19 light-3` in red,
the spike's contention figure, while light-3 waited 0 ms; at 10,000 keys the figures were
recomputed only now and then and read `(at 1 runs)`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Static

from ckviz.fairness import OwnLimit, key_service
from ckviz.fairness_so_far import SoFar, headline
from ckviz.model.scenario import Scenario
from ckviz.player.lanes import Lane, Lockstep
from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.compare import CompareScreen, LaneView
from ckviz.tui.widgets.bars.status import StatusBar
from tests.tui.conftest import press, settle, type_into

pytestmark = pytest.mark.slow

MakeApp = Callable[..., CkvizApp]

MANY_KEYS = """\
description = "One heavy backlog and 1,500 light keys arriving behind it."
env_limit = 8

[[keys]]
name = "heavy"
runs = 600
arrival = "immediate"
hold_ms_mean = 10

[[keys]]
name = "light"
count = 1500
runs = 1
arrival = "poisson"
rate_per_sec = 2
hold_ms_mean = 10
"""


def by_definition(lane: Lane, scenario: Scenario) -> SoFar:
    """fairness.key_service over the lane's dequeues so far and every run queued now."""
    engine, ledger = lane.driver, lane.driver.ledger
    queued = {  # each from when it came due (a retry's, with the run lifecycle)
        key: [
            ledger.due.get(run_id, ledger.planned(run_id).arrival_ms) for _, run_id in book.queued
        ]
        for key, book in ledger.books.items()
        if book.queued
    }
    facts = engine.outcome()
    cap = facts.per_key_cap
    own = OwnLimit(cap, facts.holds) if cap is not None else None
    per_call = scenario.clock.per_call
    return headline(key_service(engine.events, scenario.weights(), None, own, per_call, queued))


def agrees(shown: SoFar, app: CkvizApp, lane: int = 0) -> None:
    source = app.player.source
    assert isinstance(source, Lockstep) and isinstance(source.setup.scenario, Scenario)
    want = by_definition(source.lanes[lane], source.setup.scenario)
    assert shown.underserved == want.underserved, (shown, want)
    assert shown.attainment == pytest.approx(want.attainment)
    assert shown.jain == pytest.approx(want.jain)


async def test_each_lanes_headline_is_its_tables_demand_aware_fairness(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "c", "colon")
        await type_into(pilot, "500")
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        frame = app.player.recording.current
        assert frame is not None and frame.times == (500, 500)
        for lane, fairness in enumerate(frame.fairness):
            agrees(fairness, app, lane)
        baseline, sfq = frame.fairness
        # sfq served every light key at once: nobody short-changed, Jain about 1
        assert sfq.jain is not None and sfq.jain > 0.95 and sfq.attainment is not None
        assert baseline.underserved == "light-1" and baseline.attainment == 0.0
        headers = [view.query_one(".lane-header", Static) for view in screen.query(LaneView)]
        sfq_header = str(headers[1].render())
        assert f"under-served heavy {sfq.attainment:.2f} · Jain {sfq.jain:.2f}" in sfq_header
        assert "light-3" not in sfq_header, sfq_header
        await pilot.press("q")


async def test_the_headline_is_never_stale_at_a_thousand_keys(
    make_app: MakeApp, tmp_path: Path
) -> None:
    scenario = tmp_path / "many_light.toml"
    scenario.write_text(MANY_KEYS)
    app = make_app(str(scenario), "sfq")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "colon")
        await type_into(pilot, "900")
        for _ in range(3):
            await press(pilot, "n")
            frame = app.player.recording.current
            assert frame is not None and frame.snapshots[0].dequeued > 500
            agrees(frame.fairness[0], app)
            status = app.screen.query_one(StatusBar).text.plain
            assert "(at " not in status, status
        await pilot.press("q")


async def test_with_retries_the_headline_still_counts_what_the_table_counts(
    make_app: MakeApp,
) -> None:
    app = make_app("life_retry_storm", "sfq")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "colon")
        await type_into(pilot, "400")
        source = app.player.source
        assert isinstance(source, Lockstep) and source.lanes[0].driver.ledger.nacks > 0
        for _ in range(3):  # runs come back after their backoff: recomputed, never stale
            await press(pilot, "n")
            frame = app.player.recording.current
            assert frame is not None and frame.fairness[0].attainment is not None
            agrees(frame.fairness[0], app)
        await pilot.press("q")
