"""Panes drawn from frames made by hand (tests/tui/fake_source.py): no Redis, every figure
chosen by the test, so each assertion reads straight off what was put in (as memray's TUI
tests feed its app snapshots of their own)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ckviz.fairness_so_far import SoFar
from ckviz.inputs import scenario_files
from ckviz.model.decision import Candidate, Decision
from ckviz.model.snapshot import DequeueEvent, EventLog, HeldRun, QueueEvent
from ckviz.player.frames import Frame, Setup
from ckviz.tui.app import CkvizApp
from ckviz.tui.screens.compare import CompareScreen, LaneView
from ckviz.tui.widgets.discipline.discipline import DisciplinePane
from ckviz.tui.widgets.queue.event_log import EventLogPane
from ckviz.tui.widgets.queue.held_slots import HeldSlotsPane
from ckviz.tui.widgets.queue.key_queues import KeyQueuesPane
from tests.tui.conftest import SIZE, press, settle
from tests.tui.fake_source import HandMade, frame, snapshot

pytestmark = pytest.mark.slow

KEYS = ("heavy", "light-0", "light-1")


def with_events(made: Frame) -> Frame:
    """`made` after heavy's three runs and light-0's one were dequeued, heavy holding two."""
    served = [DequeueEvent("heavy", f"heavy~0#{n}", 0, 10 * n) for n in range(3)] + [
        DequeueEvent("light-0", "light-0~0#0", 5, 40)
    ]
    recent = tuple(QueueEvent("dequeue", e.dequeued_ms, e.key, e.run_id) for e in served)
    held = (HeldRun("heavy", "heavy~0#1", 70), HeldRun("heavy", "heavy~0#2", 90))
    snap = replace(
        made.snapshots[0],
        t=50,
        events=EventLog(served, len(served)),
        recent=recent,
        held=held,
        taken_from=3,
    )
    return replace(made, snapshots=(snap,))


async def test_held_slots_and_events_show_what_the_frame_holds() -> None:
    app = CkvizApp(HandMade(with_events(frame(KEYS, 0, 1))), "ck_skew", "baseline")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        held = app.screen.query_one(HeldSlotsPane).plain.splitlines()
        assert held[0].startswith("2/4 held")
        assert held[1].split()[:3] == ["1", "heavy", "20ms"]  # released at 70, now t=50
        assert held[3].split() == ["3", "·", "free"] and held[4].split() == ["4", "·", "free"]
        assert "heavy 2" in held[-1] and "free 2" in held[-1]
        events = app.screen.query_one(EventLogPane).plain.splitlines()
        assert [line.split()[-1] for line in events] == [
            "heavy~0#0",
            "heavy~0#1",
            "heavy~0#2",
            "light-0~0#0",
        ]
        await pilot.press("q")


async def test_a_filter_keeps_the_slot_numbers_and_drops_the_other_keys_events() -> None:
    app = CkvizApp(HandMade(with_events(frame(KEYS, 0, 1))), "ck_skew", "baseline")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "l", "t", "0", "enter")
        await settle(pilot)
        held = app.screen.query_one(HeldSlotsPane).plain.splitlines()
        assert held[0].startswith("/lt0: 0 of 2/4 held")
        events = app.screen.query_one(EventLogPane).plain.splitlines()
        assert [line.split()[-1] for line in events] == ["light-0~0#0"]
        rows = app.screen.query_one(KeyQueuesPane).plain
        assert "light-0" in rows and "heavy" not in rows
        await pilot.press("q")


def two_lanes(step: int) -> Frame:
    """Baseline and sfq side by side at `step`, sfq's lane the fairer."""
    setup = Setup(scenario_files.load("ck_skew"), "seed-a", ("baseline", "sfq"))
    left = snapshot(KEYS, 1, step)
    right = replace(snapshot(KEYS, 2, step), discipline="sfq")
    fair = (SoFar("light-1", 0.2, 0.5), SoFar("light-2", 0.9, 0.99))
    return Frame(setup, (left, right), fair)


async def test_compare_mode_draws_each_lane_from_its_own_snapshot() -> None:
    app = CkvizApp(HandMade(two_lanes(1), two_lanes(2)), "ck_skew", "baseline", compare_with="sfq")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        lanes = list(app.screen.query(LaneView))
        assert [lane.border_title for lane in lanes] == ["baseline", "sfq"]
        held = [lane.query_one(HeldSlotsPane).plain.splitlines()[0] for lane in lanes]
        assert held[0].startswith("held ") and held[0].count("·") == 3
        assert held[1].count("·") == 2
        await press(pilot, "space")
        assert app.player.recording.current is not None
        assert app.player.recording.current.snapshots[1].step == 2
        await pilot.press("q")


async def test_a_frame_of_the_next_call_and_unknown_releases_is_said_so() -> None:
    """A live queue's frame: the decision is the next call's, worked out from a read (none
    made), and which held run is released when is not known."""
    made = frame(KEYS, 0, 1)
    ahead = Decision(
        (
            Candidate("light-0", (("head t", 3),), "served"),
            Candidate("heavy", (("head t", 5),), "served"),
        )
    )
    held = (HeldRun("heavy", "heavy #1", None), HeldRun("light-1", "light-1 #1", None))
    snap = replace(made.snapshots[0], decision=ahead, decision_ahead=True, held=held)
    app = CkvizApp(HandMade(replace(made, snapshots=(snap,))), "ck_skew", "baseline")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        said = " ".join(app.screen.query_one(DisciplinePane).plain.split())
        assert said.startswith("next dequeue: ▶ light-0 +1 more · won with head t 3 by")
        assert "runner-up heavy: served next: head t 5 > light-0's 3" in said
        assert "this step" not in said
        slots = app.screen.query_one(HeldSlotsPane).plain.splitlines()
        assert slots[0].strip() == "2/4 held"  # no release column to head
        assert slots[1].split()[:3] == ["1", "heavy", "-"]
        await pilot.press("q")
