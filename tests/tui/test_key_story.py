"""A key's own story (issue 37, item 7): `enter` on a key's row opens its runs (arrival,
dequeue, wait, what ended it), the event log follows that key until esc, `x` writes the story
as CSV through the one CSV writer and `c` copies that CSV to the clipboard; a frame with no
per-run log (a live queue's) says what it knows instead of failing."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pytest

from ckviz.model.snapshot import HeldRun
from ckviz.player.story import KeyStory, RunStory, story_csv, story_of
from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.story import StoryScreen
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import press, press_n, settle
from tests.tui.fake_source import snapshot

MakeApp = Callable[..., CkvizApp]

pytestmark = pytest.mark.slow


async def test_enter_on_a_key_row_opens_its_runs_and_x_and_c_export_them(
    make_app: MakeApp,
) -> None:
    app = make_app("ck_skew", "sfq")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press_n(pilot, 40)
        await press(pilot, "2")  # the per-key table: its cursor on the first row, pinned
        queues = app.screen.query_one(KeyQueuesPane)
        key = queues.cursor_key
        assert key == "light-1"
        await press(pilot, "enter")
        shown = app.screen
        assert isinstance(shown, StoryScreen)
        story = shown.stories[0]
        snap = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        served = [e for e in snap.events if e.key == key]
        assert story.served == len(served) > 0
        taken = [run for run in story.runs if run.dequeued is not None]
        assert [(r.run_id, r.dequeued, r.wait) for r in taken] == [
            (e.run_id, e.dequeued_ms, e.wait_ms) for e in served
        ]
        acked = [run for run in story.runs if run.end == "acked"]
        assert acked and all(r.ended is not None and r.ended >= (r.dequeued or 0) for r in acked)
        held = {run.run_id for run in snap.held if run.key == key}
        assert {run.run_id for run in story.runs if run.end == "held"} == held

        await press(pilot, "x")
        written = list(Path.cwd().glob(f"*-story-{key}-*.csv"))
        assert len(written) == 1
        with written[0].open(newline="") as file:
            rows = list(csv.reader(file))
        assert rows[0][:4] == ["lane", "discipline", "key", "run_id"] and "wait_ms" in rows[0]
        assert len(rows) - 1 == len(story.runs) and {row[2] for row in rows[1:]} == {key}
        await press(pilot, "c")
        assert app.clipboard == written[0].read_bytes().decode()

        await press(pilot, "escape")  # the story closes; the event log keeps to its key
        events = app.screen.query_one(EventLogPane)
        assert events.only_key == key and "light-1 only" in str(events.border_title)
        lines = [line for line in events.plain.splitlines() if line.strip()]
        assert lines and all(f"{key}~" in line for line in lines), lines
        await press(pilot, "escape")  # every event again
        assert events.only_key is None
        await pilot.press("q")


async def test_a_story_names_nacks_and_dead_letters_as_the_books_count_them(
    make_app: MakeApp,
) -> None:
    app = make_app("life_dead_letter", "baseline")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, ">")
        snap = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        assert snap.done and snap.life is not None
        dead = {k: row.dead_lettered for k, row in snap.life.keys.items() if row.dead_lettered}
        assert dead  # the scenario dead-letters some runs
        for key, count in dead.items():
            story = story_of(snap, key)
            assert sum(run.end == "dead letter" for run in story.runs) == count
            assert any(run.end == "nacked" and run.ended is not None for run in story.runs)
            retried = [run for run in story.runs if run.attempt > 1]
            assert retried and all(run.arrived is not None for run in retried)
        await pilot.press("q")


def test_a_frame_without_a_log_says_what_is_known() -> None:
    """A live queue's frame keeps no per-run history: the story lists the runs held now and
    says so, rather than failing."""
    snap = snapshot(("heavy", "light-1"), held=2, step=3)
    assert snap.log is None
    story = story_of(snap, snap.held[0].key)
    assert story.unknown is not None and "queued and held now" in story.unknown
    held = [run for run in snap.held if run.key == story.key]
    assert [run.run_id for run in story.runs] == [run.run_id for run in held]
    assert all(run.end == "held" for run in story.runs)
    assert isinstance(snap.held[0], HeldRun)


def test_the_story_csv_guards_formula_cells() -> None:
    """A key name a spreadsheet would run is written as text (the one CSV writer's rule)."""
    run = RunStory("=HYPERLINK(1)~0#0", 1, 0, 5, 5, "c1 vtime", "acked", 9, "@c2")
    text = story_csv([KeyStory("=HYPERLINK(1)", 0, "sfq", "ms", 10, (run,))])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1][2] == "'=HYPERLINK(1)" and rows[1][3].startswith("'=")
    assert rows[1][-1] == "'@c2" and rows[1][5:8] == ["0", "5", "5"]


async def test_a_step_scenarios_story_tells_its_runs_queued_and_served(make_app: MakeApp) -> None:
    """The step clock logs its enqueues (and releases) in the whole log too: a key with runs
    queued and none served yet has a story of queued runs, not an empty one."""
    app = make_app("micro_skew", "vtime")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press_n(pilot, 12)
        snap = app.player.recording.current.snapshots[0]  # type: ignore[union-attr]
        for row in snap.keys:
            story = story_of(snap, row.key)
            queued = [run for run in story.runs if run.end == "queued"]
            assert len(queued) == row.queued and all(r.arrived is not None for r in queued)
            assert story.served == row.dequeued
        await pilot.press("q")
