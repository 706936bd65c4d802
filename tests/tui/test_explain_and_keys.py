"""Issue 11: nothing misleading (starved keys, fairness n/a, counters), the "this step" line,
and the new keys and palette commands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import OptionList

from ckviz.defaults import DEFAULT_SEED
from ckviz.disciplines.registry import RULES
from ckviz.fairness import KeyService
from ckviz.fairness_so_far import SoFar, headline
from ckviz.headless.cells import Cell, run_cell
from ckviz.inputs import scenario_files
from ckviz.model.matrix import Treatment
from ckviz.model.results import Results
from ckviz.model.snapshot import DequeueEvent, EventLog, KeyRow
from ckviz.player.export import export_stem
from ckviz.player.frames import Frame, Setup
from ckviz.store.server import RedisServer
from ckviz.tui.app import CkvizApp
from ckviz.tui.palette import KeyPalette, theme_colours
from ckviz.tui.widgets.bars.status import Controls, StatusBar, longest_wait
from ckviz.tui.widgets.compare.wait_compare import WaitComparePane
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.pane import Pane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import SIZE, palette, press, press_n, settle
from tests.tui.fake_source import BASE, HandMade, snapshot
from tests.waiting import eventually

MakeApp = Callable[..., CkvizApp]


def compare_frame() -> Frame:
    """t=100: left lane served heavy only (light waits since t=0); right served both."""
    keys = ("heavy", "light")
    served = [DequeueEvent("heavy", "heavy~0#0", 0, 0)]
    left = replace(
        snapshot(keys, 0, 10),
        keys=(
            KeyRow("heavy", 1.0, 3, 0, 1, 0, float(BASE), 0),
            KeyRow("light", 1.0, 2, 0, 0, 0, float(BASE), 0),
        ),
        events=EventLog(served, 1),
    )
    both = [*served, DequeueEvent("light", "light~0#0", 0, 50)]
    right = replace(
        left,
        discipline="sfq",
        keys=(
            KeyRow("heavy", 1.0, 3, 0, 1, 0, float(BASE), 0),
            KeyRow("light", 1.0, 1, 0, 1, 0, float(BASE + 60), 50),
        ),
        events=EventLog(both, 2),
    )
    setup = Setup(scenario_files.load("ck_skew"), "seed-a", ("baseline", "sfq"))
    fair = SoFar()
    return Frame(setup, (left, right), (fair, fair))


async def test_a_starved_key_gets_the_longest_bar_a_mark_and_a_ratio() -> None:
    frame = compare_frame()  # the left lane's verdict: light owed enough, got none (starved)
    judged = (SoFar("light", 0.0, None, frozenset({"light"})), frame.fairness[1])
    app = CkvizApp(
        HandMade(replace(frame, fairness=judged)), "ck_skew", "baseline", compare_with="sfq"
    )
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        text = app.screen.query_one(WaitComparePane).plain
        light = next(line for line in text.splitlines() if line.startswith("light"))
        # left: never served, its head has waited 100ms: a full bar, 100ms, 0 out, ✖
        assert "█" in light.split("100ms")[0]
        assert "100ms    0 ✖" in light
        # right: served once after 50ms, its head waited 40ms: (50 + 40) / 2 = 45ms
        assert "45ms    1" in light and light.rstrip().endswith("0.45x")
        heavy = next(line for line in text.splitlines() if line.startswith("heavy"))
        assert "✖" not in heavy and heavy.rstrip().endswith("1.00x")
        await pilot.press("q")


def test_fairness_is_na_until_a_key_is_judged_and_names_the_worst_key() -> None:
    assert headline({}) == SoFar(None, None, None)
    owed = {  # reg-10 and reg-2 got a fifth of what they were owed; heavy more than its share
        "reg-10": KeyService(owed=5.0, got=1, owed_beside_others=5.0, got_beside_others=1),
        "reg-2": KeyService(owed=5.0, got=1, owed_beside_others=5.0, got_beside_others=1),
        "heavy": KeyService(owed=5.0, got=13, owed_beside_others=5.0, got_beside_others=13),
    }
    so_far = headline(owed)
    assert so_far.jain == pytest.approx(3.0**2 / (3 * (0.04 + 0.04 + 2.6**2)))  # attainments'
    fair = SoFar(so_far.underserved, so_far.attainment, so_far.jain)
    assert fair.underserved == "reg-10" and fair.attainment == 0.2  # ties by name, as results
    palette = KeyPalette(["heavy"], ["#ff0000"])
    frame = Frame(
        replace(compare_frame().setup, disciplines=("baseline",)),
        compare_frame().snapshots[:1],
        (SoFar(),),
    )
    line = StatusBar.render_frame(frame, Controls(), palette).plain.splitlines()[1]
    assert "most under-served n/a (no key owed 3 dequeues yet)" in line
    assert "Jain" not in line
    frame = replace(frame, fairness=(fair,))
    line = StatusBar.render_frame(frame, Controls(), palette).plain.splitlines()[1]
    assert "most under-served reg-10 0.20 of its share · Jain" in line
    assert palette.verdict(0.2) != palette.verdict(0.9)


def test_done_with_slots_held_says_so_and_replay_counts_frames() -> None:
    frame = compare_frame()
    snaps = tuple(
        replace(s, done=True, held=s.held or snapshot(("a",), 2, 1).held) for s in frame.snapshots
    )
    palette = KeyPalette([], [])
    line = StatusBar.render_frame(
        replace(frame, snapshots=snaps), Controls(replay=(3, 9)), palette
    ).plain.splitlines()[1]
    assert line.lstrip().startswith("■ done (4 slots still held")
    assert "replay: frame 3 of 9 recorded" in line


async def test_this_step_names_the_winner_and_its_rule(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.screen.query_one(DisciplinePane).plain.splitlines()[0]
        assert first.startswith("this step: nothing dequeued")
        await press(pilot, "space")
        first = app.screen.query_one(DisciplinePane).plain.splitlines()[0]
        taken = app.player.recording.current.snapshots[0].taken  # type: ignore[union-attr]
        assert taken and first.startswith(f"this step: ▶ {taken[0].key}")
        lines = app.screen.query_one(DisciplinePane).plain.splitlines()[:8]
        wrapped = " ".join(" ".join(lines).split())  # a wrap's spaces, one
        assert RULES["sfq"] in wrapped  # the registry's words, wrapped, never cut
        await pilot.press("q")


async def test_greater_than_runs_to_the_end_and_plus_minus_change_the_speed(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        status = app.screen.query_one(StatusBar)
        await press(pilot, "plus")
        assert "play speed 16.7 instants/s" in status.text.plain
        await press(pilot, "minus", "minus")
        assert "play speed 4 instants/s" in status.text.plain
        await press(pilot, "greater_than_sign")
        current = app.player.recording.current
        assert current is not None and current.done
        assert current.snapshots[0].dequeued == current.snapshots[0].total_runs
        assert "■ done" in status.text.plain
        await pilot.press("q")


@pytest.mark.slow
async def test_palette_steps_and_runs_to_the_end(make_app: MakeApp) -> None:
    app = make_app("ck_trickle", "drr")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette(pilot, "step 10 dequeue", "Step 10 dequeue rounds")
        assert app.player.recording.current is not None
        assert app.player.recording.current.snapshots[0].step == 10
        await palette(pilot, "run to the end", "Run to the end")
        assert app.player.recording.current.done
        await pilot.press("q")


@pytest.mark.slow
async def test_x_and_the_palettes_screenshot_export_here(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "x")
        step = app.player.recording.current.snapshots[0].step  # type: ignore[union-attr]
        stem = f"ckviz-ck_skew-baseline-round{step}"
        assert (tmp_path / f"{stem}.svg").read_text(encoding="utf-8").startswith("<svg")
        results = Results.model_validate_json((tmp_path / f"{stem}.json").read_bytes())
        assert (
            not results.complete
            and results.error is not None
            and "before the end" in (results.error)
        )
        (run,) = results.scenarios[0].runs
        assert run.discipline == "baseline" and len(run.metrics.per_key) == 5
        shown = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        assert (
            run.metrics.total_dequeued
            == shown.dequeued
            == sum(k.dequeued for k in run.metrics.per_key)
        )
        await press(pilot, "n")
        await palette(pilot, "screenshot", "Screenshot")
        step = app.player.recording.current.snapshots[0].step  # type: ignore[union-attr]
        shot = tmp_path / f"ckviz-ck_skew-baseline-round{step}.svg"
        await eventually(shot.is_file, "the palette's screenshot written")
        await pilot.press("q")


@pytest.mark.slow
async def test_D_picks_the_right_lanes_discipline(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "c", "D")
        assert app.screen.query_one("#picker").border_title == "Discipline · right lane"
        await pilot.press("q")


@pytest.mark.slow
async def test_number_keys_focus_a_pane_that_j_k_g_G_scroll(make_app: MakeApp) -> None:
    app = make_app("ck_many_keys", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.focused is None  # the app's keys work from the start
        await press(pilot, "2")
        queues = app.screen.query_one(KeyQueuesPane)
        assert app.focused is queues
        assert queues.cursor == 0  # a key table: j/k move its row cursor, the view follows
        await press(pilot, "j", "j", "j")
        assert queues.cursor == 3 and queues.scroll_offset.y == 0
        await press(pilot, "k")
        assert queues.cursor == 2
        await press(pilot, "G")
        # the frame carries the view's rows, not all 10,001: the table scrolls through those
        assert queues.scroll_offset.y == queues.max_scroll_y > 50
        assert queues.cursor == queues.rows.count - 1
        assert " of 10001 keys · " in str(queues.border_subtitle)
        await press(pilot, "g")
        assert queues.scroll_offset.y == 0 and queues.cursor == 0
        await press(pilot, "tab")
        assert app.focused is not queues and isinstance(app.focused, Pane)
        await press(pilot, "space")  # still steps while a pane has focus
        assert app.player.recording.current.snapshots[0].step == 1  # type: ignore[union-attr]
        await pilot.press("q")


@pytest.mark.slow
async def test_z_zooms_the_focused_pane_and_o_sorts_the_keys(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_n(pilot, 10)
        queues = app.screen.query_one(KeyQueuesPane)
        await press(pilot, "z")
        assert app.screen.maximized is queues
        await press(pilot, "z")
        assert app.screen.maximized is None
        # pinned first: the scenario's light key, then the longest-waiting key
        keys = [line.split()[0] for line in queues.plain.splitlines()[1:]]
        snap = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        oldest = longest_wait(snap)
        assert oldest is not None and keys[0] == "light-1" and keys[1] == oldest[0]
        await press(pilot, "o")  # sorted by queued, largest first (after the pinned rows)
        assert queues.sort_by == "queued"
        rows = queues.plain.splitlines()[1:]
        assert queues.border_subtitle.startswith("sorted by queued")
        rest = queues.ordered(snap)[2:]
        assert [line.split()[0] for line in rows][2:] == [r.key for r in rest]
        assert [r.queued for r in rest] == sorted((r.queued for r in rest), reverse=True)
        await press(pilot, "o", "o", "o", "o")
        assert queues.sort_by == "scenario"
        await pilot.press("q")


@pytest.mark.slow
async def test_pickers_show_each_choices_description(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        sfq = options.get_option("sfq").prompt
        assert isinstance(sfq, Text) and "lowest start tag" in sfq.plain
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        skew = options.get_option("ck_skew").prompt
        description = scenario_files.load("ck_skew").description
        assert description and isinstance(skew, Text) and description in skew.plain
        await pilot.press("escape")
        await pilot.press("q")


def test_the_palette_tells_24_keys_apart() -> None:
    dark = theme_colours({"background": "#000000", "primary": "#0178d4"})
    assert len(dark) == 24 and len(set(dark)) == 24
    keys = [f"heavy-{i}" for i in range(24)]
    palette = KeyPalette(keys, dark)
    assert len({palette.colour(key) for key in keys}) == 24


@pytest.mark.parametrize(("name", "discipline"), [("ck_trickle", "sfq"), ("micro_skew", "vtime")])
@pytest.mark.slow
async def test_x_at_the_end_writes_the_results_a_headless_run_writes(
    make_app: MakeApp,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tui_server: RedisServer,
    namespace: str,
    name: str,
    discipline: str,
) -> None:
    """One results format: the app's export of a run to the end carries the same run entry
    as `ckviz --headless` for the scenario, seed and discipline (timing aside)."""
    monkeypatch.chdir(tmp_path)
    app = make_app(name, discipline)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "greater_than_sign", "x")
        assert app.player.recording.current is not None
        stem = export_stem(app.player.recording.current)
        note = f"wrote {stem}.svg and "  # once every file is written
        await eventually(lambda: any(note in n.message for n in app._notifications), note)
        exported = Results.model_validate_json((tmp_path / f"{stem}.json").read_bytes())
        await pilot.press("q")
    assert exported.complete and exported.error is None
    assert exported.redis.version == tui_server.version
    scenario = scenario_files.load_any(name)
    cell = Cell(0, scenario, DEFAULT_SEED, Treatment(discipline=discipline), 1, f"{namespace}h:")
    outcome = run_cell(tui_server.url, cell)
    assert outcome.result is not None, outcome.error
    (run,) = exported.scenarios[0].runs
    timing = {"wall_clock_ms"}
    assert run.metrics.model_dump(exclude=timing) == outcome.result.metrics.model_dump(
        exclude=timing
    )
    assert run.model_dump(exclude={"metrics"}) == outcome.result.model_dump(exclude={"metrics"})
