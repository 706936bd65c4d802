"""Where a scenario's keys belong to tenants, the app shows the tenant grain beside the key
grain (docs/fairness.md, "Tenants"): the status line's most under-served tenant is the results
file's at a run's end, and compare mode's banner makes the same claim among tenants."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
import redis

from ckviz.fairness_so_far import SoFar
from ckviz.player.lanes import Lockstep
from ckviz.store.server import RedisServer
from ckviz.tui.app import CkvizApp
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import ratio
from ckviz.tui.verdict import verdict_line
from ckviz.tui.widgets.bars.status import StatusBar, fairness_parts
from tests.tui.conftest import settle
from tests.tui.test_pictures import compare_frame
from tests.waiting import eventually

MakeApp = Callable[..., CkvizApp]
PALETTE = KeyPalette(["heavy", "light-1"], ["#1f77b4", "#ff7f0e"], lanes=("#0000ee", "#aa00aa"))


def results_tenant(url: str, namespace: str, discipline: str) -> tuple[str, float]:
    """ck_sybil's most under-served tenant and its attainment in the results (seed-a)."""
    from ckviz.headless.cells import Cell, run_cell
    from ckviz.inputs import scenario_files
    from ckviz.model.matrix import Treatment

    scenario = scenario_files.load("ck_sybil")
    cell = Cell(0, scenario, "seed-a", Treatment(discipline=discipline), 1, f"{namespace}r:")
    outcome = run_cell(url, cell)
    assert outcome.result is not None, outcome.error
    m = outcome.result.metrics
    assert m.most_underserved_tenant is not None
    assert m.most_underserved_tenant_attainment is not None
    return m.most_underserved_tenant, m.most_underserved_tenant_attainment


@pytest.mark.slow
def test_the_lane_judges_tenants_as_the_results_do(
    tui_client: redis.Redis, namespace: str, redis_server: RedisServer
) -> None:
    from ckviz.inputs import scenario_files
    from ckviz.player.frames import Setup

    lanes = Lockstep(tui_client, namespace)
    try:
        lanes.start(Setup(scenario_files.load("ck_sybil"), "seed-a", ("sfq",)))
        *_, frame = lanes.run_to_end(lambda: False)
        fair = frame.fairness[0]
    finally:
        lanes.close()
    assert fair.tenant == results_tenant(redis_server.url, namespace, "sfq")
    assert fair.tenant is not None and fair.tenant[0] == "honest"
    assert fair.tenant_over is not None and fair.tenant_over[0] == "sybil"


@pytest.mark.slow
def test_a_scenario_without_tenants_shows_none(tui_client: redis.Redis, namespace: str) -> None:
    from ckviz.inputs import scenario_files
    from ckviz.player.frames import Setup

    lanes = Lockstep(tui_client, namespace)
    try:
        lanes.start(Setup(scenario_files.load("ck_skew"), "seed-a", ("sfq",)))
        frame = lanes.step_round()
        assert frame is not None
        fair = frame.fairness[0]
    finally:
        lanes.close()
    assert fair.tenant is None and fair.tenant_over is None


@pytest.mark.slow
async def test_the_status_line_names_the_honest_tenants_attainment(
    make_app: MakeApp, redis_server: RedisServer, namespace: str
) -> None:
    want = results_tenant(redis_server.url, namespace, "sfq")
    app = make_app("ck_sybil", "sfq")
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign")  # run to the end
        await eventually(lambda: app.player.recording.current.done, "the run to end")  # type: ignore[union-attr]
        await settle(pilot)
        status = app.screen.query_one(StatusBar).text.plain
    assert f"most under-served tenant honest {ratio(want[1])}" in status, status


def test_the_most_over_served_tenant_follows_where_there_is_room() -> None:
    fair = SoFar("heavy-7", 0.9, tenant=("honest", 0.12), tenant_over=("sybil", 1.9))
    shown = "".join(p.text.plain for p in fairness_parts(fair, PALETTE, None))
    assert " · most under-served tenant honest 0.12, over-served sybil 1.90" in shown
    assert "tenant" not in "".join(
        p.text.plain for p in fairness_parts(SoFar("a", 0.9), PALETTE, None)
    )


def test_the_banner_claims_among_tenants_by_the_same_rule() -> None:
    lanes = (
        SoFar("light-1", 0.9, tenant=("honest", 0.12)),
        SoFar("light-2", 0.92, tenant=("honest", 0.95)),
    )
    line = verdict_line(replace(compare_frame(), fairness=lanes), PALETTE, 400).plain
    assert line.endswith(
        "; at the tenant grain, sfq leads (one sample): its most under-served tenant gets 95% of "
        "its fair "
        "share, baseline's honest 12%"
    ), line
    assert "baseline and sfq: no difference shown" in line  # among keys, no lead
    even = (SoFar("a", 0.5, tenant=("x", 0.5)), SoFar("b", 0.5, tenant=("x", 0.52)))
    plain = verdict_line(replace(compare_frame(), fairness=even), PALETTE, 400).plain
    assert plain.endswith("at the tenant grain, no difference shown (50%+)")
    short = verdict_line(replace(compare_frame(), fairness=lanes), PALETTE, 78).plain
    assert "tenants: sfq leads" in short
    alone = (SoFar("a", 0.5), SoFar("b", 0.9))
    assert "tenant" not in verdict_line(replace(compare_frame(), fairness=alone), PALETTE).plain
