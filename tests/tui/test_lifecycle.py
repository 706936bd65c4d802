"""Quitting, restarting into other setups, playing, and a Redis that goes away."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import pytest
import redis

from ckviz.errors import ExitCode, UsageError
from ckviz.player.frames import Frame
from ckviz.player.lanes import Lockstep
from ckviz.sim.cell.session import new_namespace
from ckviz.store.prefix import keys_under
from ckviz.store.server import RedisServer, open_server
from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.help import HelpScreen
from ckviz.tui.screens.pickers import Picker
from ckviz.tui.widgets.bars.status import STEPPING, StatusBar
from tests.tui.conftest import SIZE, press, settle, type_into
from tests.waiting import eventually

MakeApp = Callable[..., CkvizApp]


def status(app: CkvizApp) -> str:
    return app.screen.query_one(StatusBar).text.plain


@pytest.mark.slow
async def test_quit_deletes_every_key(
    make_app: MakeApp, tui_client: redis.Redis, namespace: str
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "c", "n", "n", "n")
        assert list(keys_under(tui_client, namespace)), "the lanes should have written keys"
        await pilot.press("q")
        await settle(pilot)
    assert app.return_value == ExitCode.OK
    assert list(keys_under(tui_client, namespace)) == []


@pytest.mark.slow
async def test_quit_in_the_middle_of_play_deletes_every_key(
    make_app: MakeApp, tui_client: redis.Redis, namespace: str
) -> None:
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("p", "+", "+", "+", "+")
        await eventually(lambda: len(app.player.recording.frames) > 2, "play to make frames")
        await pilot.press("q")
    assert list(keys_under(tui_client, namespace)) == []


@pytest.mark.slow
async def test_pickers_restart_with_the_choice(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        assert isinstance(app.screen, Picker)
        await press(pilot, "down", "enter")  # sfq is highlighted; the next one is drr
        assert " · drr · t=0ms" in status(app)
        await pilot.press("e")
        await type_into(pilot, "seed-x")
        assert "seed seed-x" in status(app)
        await pilot.press("s")
        picker = app.screen
        assert isinstance(picker, Picker) and "ck_balanced" in picker.choices
        picker.dismiss("ck_balanced")
        await settle(pilot)
        assert status(app).startswith(" ck_balanced · seed seed-x · drr")
        await pilot.press("e", "escape")  # cancelling changes nothing
        await settle(pilot)
        assert "seed seed-x" in status(app)


@pytest.mark.slow
async def test_compare_mode_picks_each_lane(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "drr", compare_with="stride")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("D")
        picker = app.screen
        assert isinstance(picker, Picker) and picker.title_text == "Discipline · right lane"
        picker.dismiss("codel-sfq")
        await settle(pilot)
        assert app.player.setup.disciplines == ("drr", "codel-sfq")
        assert " · drr vs codel-sfq · " in status(app)


def test_unknown_names_are_usage_errors(tui_client: redis.Redis, namespace: str) -> None:
    lanes = Lockstep(tui_client, namespace)
    with pytest.raises(UsageError, match="unknown discipline 'fifo'"):
        CkvizApp(lanes, "ck_skew", "fifo")
    with pytest.raises(UsageError, match="unknown scenario"):
        CkvizApp(lanes, "no_such_scenario", "sfq")


@pytest.mark.slow
async def test_help_opens_and_closes(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.slow
async def test_the_status_says_stepping_while_a_step_is_in_flight(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    release = threading.Event()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert STEPPING not in status(app)
        advance = app.player.source.advance

        def held_back(instant: bool, count: int = 1) -> list[Frame]:
            release.wait(10)  # the driver thread waits here until the test lets it go
            return advance(instant, count)

        app.player.source.advance = held_back  # type: ignore[method-assign]
        try:
            await pilot.press("n")
            await pilot.pause()
            assert app.player.busy and STEPPING in status(app)
            current = app.player.recording.current
            assert current is not None and current.times == (0,)
        finally:
            release.set()
        await settle(pilot)
        assert not app.player.busy and STEPPING not in status(app)
        current = app.player.recording.current
        assert current is not None and current.times != (0,)


@pytest.mark.slow
async def test_play_advances_and_pause_stops(make_app: MakeApp) -> None:
    app = make_app("ck_trickle", "stride")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("+", "+", "+", "p")
        assert "playing" in status(app)
        await eventually(lambda: len(app.player.recording.frames) > 5, "play to make frames")
        await pilot.press("p")
        await settle(pilot)
        assert "paused" in status(app)
        recorded = len(app.player.recording.frames)
        assert recorded > 5
        assert not app.player.playing and app.player.in_flight == 0  # nothing more to come
        await pilot.pause()
        await settle(pilot)
        assert len(app.player.recording.frames) == recorded


@pytest.mark.slow
async def test_play_runs_to_the_end(make_app: MakeApp) -> None:
    app = make_app("ck_balanced", "codel-sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*["+"] * 8, "p")
        await eventually(
            lambda: app.player.recording.current is not None and app.player.recording.current.done,
            "play to reach the end",
        )
        await settle(pilot)
        assert "■ done" in status(app)
        assert "240/240 runs out" in status(app)
        await pilot.press("space")  # nothing left to step: no error, no new frame
        await settle(pilot)
        assert app.player.recording.current.done  # type: ignore[union-attr]


async def test_theme_switch_keeps_working(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        dark = app.palette.colour("heavy")
        await press(pilot, "t", "n")
        assert app.theme == "textual-light"
        assert app.palette.colour("heavy") != dark


async def test_redis_going_away_shows_an_error_not_a_traceback() -> None:
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(open_server())
        client = server.client()
        stack.callback(client.close)
        app = CkvizApp(Lockstep(client, new_namespace()), "ck_skew", "sfq")
        try:
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                await press(pilot, "n")
                stack.close()  # the server stops under the running app
                await press(pilot, "n")
                assert app.player.error is not None
                assert "✖" in status(app) and "Redis" in status(app)
                await press(pilot, "n")  # refused, still no traceback
                await pilot.press("q")
        finally:
            app.close_now()
    assert app.return_value == ExitCode.REDIS


async def test_an_app_ended_without_quit_is_closed_by_close_now(
    make_app: MakeApp, tui_client: redis.Redis, namespace: str
) -> None:
    # What run_app does after app.run() returns, however the app ended.
    app = make_app("ck_skew", "drr")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n")
    assert list(keys_under(tui_client, namespace))
    app.close_now()
    assert list(keys_under(tui_client, namespace)) == []


def test_the_lane_judges_fairness_as_the_results_do(
    tui_client: redis.Redis, namespace: str, redis_server: RedisServer
) -> None:
    """One definition everywhere: at a run's end the status line's most under-served key and
    its attainment are the results file's (ckviz/fairness.py), not a figure of its own."""
    from ckviz.headless.cells import Cell, run_cell
    from ckviz.inputs import scenario_files
    from ckviz.model.matrix import Treatment
    from ckviz.player.frames import Setup

    scenario = scenario_files.load("ck_skew")
    lanes = Lockstep(tui_client, namespace)
    try:
        lanes.start(Setup(scenario, "seed-a", ("baseline",)))
        *_, frame = lanes.run_to_end(lambda: False)  # (and frames on the way)
        fair = frame.fairness[0]
    finally:
        lanes.close()
    cell = Cell(0, scenario, "seed-a", Treatment(discipline="baseline"), 1, f"{namespace}r:")
    outcome = run_cell(redis_server.url, cell)
    assert outcome.result is not None, outcome.error
    m = outcome.result.metrics
    assert fair.underserved == m.most_underserved_key and fair.underserved != "heavy"
    assert fair.attainment == m.most_underserved_attainment
