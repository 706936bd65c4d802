"""The player without Textual or Redis: every move through a run on frames made by hand."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from ckviz.player.frames import Frame
from ckviz.player.moves import BELL, Ask, Refused, Show
from ckviz.player.player import Player
from ckviz.player.progress import Heard
from ckviz.player.tape import MAX_QUEUED
from tests.tui.fake_source import HandMade, frame
from tests.waiting import within

KEYS = ("heavy", "light-0", "light-1")


def frames(count: int) -> list[Frame]:
    """Frames at steps 1..count (t = 10 x step), the last one done."""
    made = [frame(KEYS, 0, step) for step in range(1, count + 1)]
    last = made[-1]
    made[-1] = replace(last, snapshots=tuple(replace(s, done=True) for s in last.snapshots))
    return made


def started(source: HandMade) -> Player:
    player = Player(source, source.frames[0].setup)
    player.wait(player.start(player.setup))
    return player


def step(player: Player) -> int:
    current = player.recording.current
    assert current is not None
    return current.snapshots[0].step


def test_steps_record_then_back_and_forward_replay_without_asking_the_lanes() -> None:
    source = HandMade(*frames(6))
    player = started(source)
    for _ in range(3):
        move = player.advance(instant=False)
        assert isinstance(move, Ask)
        player.wait(move)
    assert step(player) == 4 and player.recording.live and len(source.frames) == 2
    assert isinstance(player.back(), Show) and isinstance(player.back(), Show)
    assert step(player) == 2 and not player.recording.live
    forward = player.advance(instant=False)
    assert isinstance(forward, Show) and forward.frame.snapshots[0].step == 3
    assert len(source.frames) == 2  # a replay asks the lanes for nothing
    player.wait(player.advance(instant=False))  # the replay reaches the live end
    assert isinstance(player.advance(instant=False), Ask)
    player.close()


def test_the_end_refuses_a_step_and_play_and_the_start_refuses_a_back() -> None:
    player = started(HandMade(*frames(2)))
    assert player.back() is BELL
    player.wait(player.advance(instant=True))
    assert player.done and player.advance(instant=True) is BELL
    assert player.set_playing(True) is False and player.tick() is None
    player.close()


def test_a_back_asked_while_steps_run_waits_for_them() -> None:
    source = HandMade(*frames(5))
    player = started(source)
    first = player.advance(instant=False)
    assert isinstance(first, Ask)
    job = player.submit(first)
    assert player.busy and player.back() is None and player.backs_pending == 1
    player.landed(job.result(), first.landing)
    backs = player.settled()
    assert len(backs) == 1 and isinstance(backs[0], Show) and step(player) == 1
    player.close()


def test_steps_beyond_the_queue_are_added_up_into_one_job() -> None:
    gate = threading.Event()

    class Slow(HandMade):
        def advance(self, instant: bool, count: int = 1) -> list[Frame]:
            gate.wait(5)
            return super().advance(instant, count)

    player = started(Slow(*frames(20)))
    jobs = []
    for _ in range(MAX_QUEUED):
        move = player.advance(instant=False)
        assert isinstance(move, Ask)
        jobs.append((player.submit(move), move.landing))
    for _ in range(3):  # no bell: added up
        assert player.advance(instant=False) is None
    assert player.coalesced == (False, 3)
    assert player.advance(instant=True) is BELL  # an instant is not three rounds
    gate.set()
    for job, landing in jobs:
        player.landed(job.result(), landing)
    assert step(player) == 1 + MAX_QUEUED and not player.busy
    (more,) = player.settled()  # once those landed: the three as one job
    assert isinstance(more, Ask) and player.wait(more) is not None
    assert step(player) == 1 + MAX_QUEUED + 1  # HandMade hands one frame per job
    assert player.coalesced is None and player.settled() == []
    player.close()


class RunsUntilStopped(HandMade):
    """A run to the end that goes on until the player's stop flag is set (or 10 s pass)."""

    def __init__(self, *made: Frame) -> None:
        super().__init__(*made)
        self.stopped = threading.Event()
        self.closing = False  # whether the stop was a quit (asked once stopped)

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        if within(cancelled, 10):
            self.stopped.set()
        self.closing = closing()
        return [self.frames.pop(0)]


def test_esc_and_a_second_run_to_the_end_stop_it_where_it_is() -> None:
    source = RunsUntilStopped(*frames(4))
    player = started(source)
    move = player.run_to_end()
    assert isinstance(move, Ask)
    job = player.submit(move)
    assert player.running_to_end and player.run_to_end() is None  # `>` again: stop
    assert source.stopped.wait(2)
    player.landed(job.result(), move.landing)
    assert not player.running_to_end and step(player) == 2
    assert player.stop() is False  # nothing runs any more: esc goes to the filter, the zoom
    player.close()


def test_closing_stops_a_run_to_the_end_first() -> None:
    source = RunsUntilStopped(*frames(4))
    player = started(source)
    move = player.run_to_end()
    assert isinstance(move, Ask)
    player.submit(move)
    player.close_soon().result(timeout=60)
    assert source.stopped.is_set() and source.closed == 1  # by the stop, not its 10 s bound
    assert source.closing  # told it is a quit: no frame wanted
    player.close()


def test_go_to_seeks_the_recording_steps_past_it_and_says_when_the_run_ended_first() -> None:
    source = HandMade(*frames(8))
    player = started(source)
    for _ in range(3):
        player.wait(player.advance(instant=True))
    seek = player.go_to(20)  # within the recording: the frame at t=20 (step 2)
    assert isinstance(seek, Show) and seek.frame.times == (20,)
    ahead = player.go_to(60)
    assert isinstance(ahead, Ask) and player.recording.live
    player.wait(ahead)
    assert player.recording.current is not None and min(player.recording.current.times) >= 60
    player.wait(player.run_to_end())
    assert player.go_to(10_000) == Refused("the run ended before t 10000")
    player.close()


def test_run_until_served_takes_one_fuzzy_match_or_says_why_not() -> None:
    player = started(HandMade(*frames(3)))
    keys = list(KEYS)
    assert player.until_served("lt", keys) == Refused(
        "run until served: 2 keys match 'lt'", "error"
    )
    assert player.until_served("zz", keys) == Refused(
        "run until served: no key matches 'zz'", "error"
    )
    assert isinstance(player.until_served("lt1", keys), Ask)
    assert isinstance(player.until_served("heavy", keys), Ask)
    player.close()


def test_a_filter_and_a_sort_ask_the_lanes_for_the_rows_they_show() -> None:
    source = HandMade(*frames(3))
    player = started(source)
    assert source.views[-1].only is None and source.views[-1].sort == "scenario"
    player.wait(player.filter_keys("lt"))
    assert source.views[-1].only == ("light-0", "light-1") and player.view.key_filter
    player.wait(player.next_sort())
    assert source.views[-1].sort == "queued" and source.views[-1].only == ("light-0", "light-1")
    player.wait(player.filter_keys(""))
    assert source.views[-1].only is None and not player.view.key_filter
    player.close()


def test_compare_mode_keeps_the_lane_it_came_from() -> None:
    player = started(HandMade(*frames(5)))
    assert player.setup.disciplines == ("baseline",)
    player.wait(player.toggle_compare())
    assert player.setup.disciplines == ("baseline", "sfq")
    player.wait(player.toggle_compare())
    assert player.setup.disciplines == ("baseline",)
    player.close()
