"""Issue 11: go to a time or step, run until a key is served, open a scenario file by path
(keys and palette), CSV export, and how step scenarios are labelled."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ckviz.player.jumps import go_to
from ckviz.tui import exporting
from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.pickers import Picker
from ckviz.tui.screens.prompt import Prompt
from ckviz.tui.widgets.bars.status import StatusBar
from ckviz.tui.widgets.queue.ck_index import CkIndexPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from tests.tui.conftest import SIZE, noted, palette, press, press_n, settle, type_into
from tests.tui.fake_source import HandMade
from tests.tui.test_explain_and_keys import compare_frame

MakeApp = Callable[..., CkvizApp]


def now(app: CkvizApp) -> Any:
    frame = app.player.recording.current
    assert frame is not None
    return frame


@pytest.mark.slow
async def test_colon_goes_to_a_time_forward_then_back_within_the_recording(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "colon")
        assert isinstance(app.screen, Prompt) and app.screen.title_text == "Go to time"
        await type_into(pilot, "250")
        frame = now(app)
        assert frame.times[0] >= 250
        recording = app.player.recording
        kept = len(recording.frames)  # the start, the instants on the way, then t>=250
        assert recording.live and kept > 2
        # an instant earlier would have been before 250: it is the first at or after it
        await press(pilot, "b")
        assert now(app).times[0] < 250
        await press(pilot, "colon")
        await type_into(pilot, "0")  # back to the start: replayed from the recording
        assert now(app).times[0] == 0 and not app.player.recording.live
        assert f"replay: frame 1 of {kept}" in app.screen.query_one(StatusBar).text.plain
        await pilot.press("q")


async def test_going_back_before_the_recording_starts_over(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "greater_than_sign")  # run to the end: its start is not kept
        app.player.recording.frames = app.player.recording.frames[-1:]
        app.player.recording.cursor = 0
        end = now(app).times[0]
        app.perform(app.player.go_to(40))
        await settle(pilot)
        frame = now(app)
        assert 40 <= frame.times[0] < end and frame.snapshots[0].step > 0
        assert not frame.done
        await pilot.press("q")


@pytest.mark.slow
async def test_go_to_past_the_end_says_so(make_app: MakeApp) -> None:
    app = make_app("ck_trickle", "drr")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette(pilot, "go to time", "Go to a time or step…")
        assert isinstance(app.screen, Prompt)
        await type_into(pilot, "99999999")
        assert now(app).done
        await noted(app, "ended before t 99999999")
        await pilot.press("q")


@pytest.mark.slow
async def test_u_runs_until_the_key_is_served(make_app: MakeApp) -> None:
    # baseline serves heavy's backlog first: light-1 waits many rounds
    app = make_app("ck_skew", "baseline")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n")
        await press(pilot, "u")
        assert isinstance(app.screen, Picker) and "light-1" in app.screen.choices
        await type_into(pilot, "lt-1")  # fuzzy: the one key it matches
        frame = now(app)
        served = [e for e in frame.snapshots[0].taken if e.key == "light-1"]
        assert served, "stopped on the round that dequeued light-1"
        before = app.player.recording.frames[-2].snapshots[0]
        assert next(r for r in before.keys if r.key == "light-1").dequeued == 0
        await noted(app, "light-1 served at t=")
        await pilot.press("q")


@pytest.mark.slow
async def test_run_until_an_unknown_or_ambiguous_key_is_one_line(make_app: MakeApp) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette(pilot, "run until a key", "Run until a key is served…")
        assert isinstance(app.screen, Picker)
        await type_into(pilot, "light")  # four keys match
        await press(pilot, "u")
        await type_into(pilot, "nope")
        assert await noted(app, "'light'") == "run until served: 4 keys match 'light'"
        assert await noted(app, "'nope'") == "run until served: no key matches 'nope'"
        assert now(app).snapshots[0].step == 0  # nothing ran
        await pilot.press("q")


async def test_until_a_key_with_nothing_left_runs_to_the_end_and_says_so(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_trickle", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        frame = now(app)
        key = frame.snapshots[0].keys[0].key
        app.perform(app.player.until_served(key, [r.key for r in frame.snapshots[0].keys]))
        await settle(pilot)
        # every key of ck_trickle is served sooner or later: it stops on that round
        assert any(e.key == key for e in now(app).snapshots[0].taken)
        await press(pilot, "greater_than_sign")
        await press(pilot, "u")  # at the end there is nothing to run
        assert not isinstance(app.screen, Picker)
        await pilot.press("q")


@pytest.mark.slow
async def test_ctrl_o_opens_a_scenario_file_and_a_bad_one_is_one_line(
    make_app: MakeApp, tmp_path: Path
) -> None:
    good = tmp_path / "two_keys.toml"
    good.write_text(
        'description = "two keys"\nenv_limit = 1\n\n[[keys]]\nname = "alpha"\nruns = 3\n\n'
        '[[keys]]\nname = "beta"\nruns = 2\n',
        encoding="utf-8",
    )
    bad = tmp_path / "bad.toml"
    bad.write_text("env_limit = 'many'\n", encoding="utf-8")
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+o")
        assert isinstance(app.screen, Prompt)
        await type_into(pilot, str(bad))
        error = await noted(app, str(bad), "error")
        assert "\n" not in error
        assert error == [n.message for n in app._notifications if n.severity == "error"][-1]
        assert app.player.setup.scenario.name == "ck_skew"  # still running what it ran
        await press(pilot, "ctrl+o")
        await type_into(pilot, str(tmp_path / "missing.toml"))
        await noted(app, "missing.toml")
        assert "missing.toml" in [n.message for n in app._notifications][-1]
        await palette(pilot, "open a scenario", "Open a scenario file…")
        await type_into(pilot, str(good))
        await settle(pilot)
        assert app.player.setup.scenario.name == "two_keys"
        assert [r.key for r in now(app).snapshots[0].keys] == ["alpha", "beta"]
        # a step scenario with a discipline that cannot run it: a discipline that can, said
        await press(pilot, "ctrl+o")
        await type_into(pilot, "micro_skew")
        await settle(pilot)
        note = [n.message for n in app._notifications][-1]
        assert note.startswith("micro_skew is a step scenario: sfq does not run on it, vtime")
        assert app.player.setup.scenario.name == "micro_skew" and app.player.error is None
        await pilot.press("q")


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as source:
        return list(csv.DictReader(source))


async def test_x_writes_events_and_per_key_csv(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press_n(pilot, 10)
        await press(pilot, "x")
        snap = now(app).snapshots[0]
        stem = f"ckviz-ck_skew-sfq-round{snap.step}"
        events = read_csv(tmp_path / f"{stem}-events.csv")
        assert len(events) == snap.dequeued > 0
        first = snap.events[0]
        assert events[0]["key"] == first.key and events[0]["run_id"] == first.run_id
        assert int(events[0]["wait_ms"]) == first.dequeued_ms - first.arrival_ms
        keys = read_csv(tmp_path / f"{stem}-keys.csv")
        # every key, in the scenario's order (the frame shown carries the table's rows only)
        assert [k["key"] for k in keys] == list(snap.every_key.key_names)
        by_key = {k["key"]: k for k in keys}
        for row in snap.keys:
            assert int(by_key[row.key]["dequeued"]) == row.dequeued
            assert int(by_key[row.key]["queued"]) == row.queued
        assert sum(int(k["dequeued"]) for k in keys) == len(events)
        assert {"wait_so_far_ms", "head_age_ms", "mean_wait_ms"} <= set(keys[0])
        assert f"in {tmp_path}" in await noted(app, "-events.csv")
        await pilot.press("q")


@pytest.mark.slow
async def test_an_export_that_cannot_write_names_the_path(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        stem = f"ckviz-ck_skew-sfq-round{now(app).snapshots[0].step}"
        (tmp_path / f"{stem}-events.csv").mkdir()  # in the way: writing it fails
        # (x picks a name no earlier export used: here, this one all the same)
        monkeypatch.setattr(exporting, "free_stem", lambda _folder, stem: stem)
        await press(pilot, "x")
        error = await noted(app, "export failed: ", "error")
        assert error.startswith("export failed: ") and f"{stem}-events.csv" in error
        assert "\n" not in error
        await pilot.press("q")


@pytest.mark.slow
async def test_step_scenarios_count_steps_and_show_no_seed(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press_n(pilot, 6)
        status = app.screen.query_one(StatusBar).text.plain
        snap = now(app).snapshots[0]
        assert f"· step {snap.t} ·" in status and "seed" not in status and "ms" not in status
        assert "steps/s" in status
        held = app.screen.query_one(HeldSlotsPane).plain
        assert "release in steps" in held and "ms" not in held
        ck_index = app.screen.query_one(CkIndexPane).plain
        assert "pass 2 reads it" in ck_index and "heavy" in ck_index and "empty" not in ck_index
        await press(pilot, "colon")
        assert app.screen.title_text == "Go to step"  # type: ignore[attr-defined]
        await type_into(pilot, "20")
        assert now(app).times[0] == 20
        await press(pilot, "x")
        stem = f"ckviz-micro_skew-vtime-step{now(app).snapshots[0].t}"
        events = read_csv(tmp_path / f"{stem}-events.csv")
        assert events and "wait_step" in events[0] and "wait_ms" not in events[0]
        await pilot.press("q")


def test_a_long_move_stops_when_asked_and_says_why() -> None:
    frames = [
        replace(
            compare_frame(),
            snapshots=compare_frame().snapshots[:1],
            fairness=compare_frame().fairness[:1],
        )
        for _ in range(6)
    ]
    frames = [
        replace(f, snapshots=(replace(f.snapshots[0], t=10 * i),)) for i, f in enumerate(frames)
    ]
    asked = iter([False, False, True])
    source = HandMade(*frames)
    jump = go_to(source, 1000, "t", stop=lambda: next(asked))
    assert [f.times for f in jump.frames] == [(0,), (10,), (20,)]  # kept on the way (item 5)
    assert jump.note == "stopped on the way to t 1000"
    assert len(source.frames) == 3  # three rounds ran, three left
    ended = go_to(HandMade(*frames), 1000, "t")
    assert ended.frames[-1].times == (50,) and ended.severity == "warning"
    reached = go_to(HandMade(*frames), 25, "t")
    assert reached.frames[-1].times == (30,) and reached.note is None
