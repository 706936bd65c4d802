"""After a long move (`>`, `:`, `u`) the frame it ends on says what its own last step did, not
everything since the frame before the move (issue 37 item 2), the frames on its way are kept
(item 5), and a step's line says what held at its call (item 3)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
import redis

from ckviz.inputs import scenario_files
from ckviz.player import viewing
from ckviz.player.frames import Setup
from ckviz.player.jumps import Jump, go_to
from ckviz.player.lanes import Lockstep
from ckviz.player.moves import Ask
from ckviz.player.player import Player
from ckviz.tui.decision import this_step
from ckviz.tui.palette import KeyPalette
from tests.tui.test_why import stepped


def stopped_after(asks: int) -> Callable[[], bool]:
    """A stop flag set once it has been asked `asks` times (esc partway through `>`)."""
    count = iter(range(asks))
    return lambda: next(count, None) is None


@pytest.mark.parametrize("move", ["go to", "run to the end, stopped", "run to the end"])
def test_the_this_step_runs_after_a_long_move_are_its_last_step_s_and_name_the_why_s_winner(
    client: redis.Redis, prefix: str, move: str
) -> None:
    lanes = Lockstep(client, prefix)
    try:
        lanes.start(Setup(scenario_files.load_any("ck_skew"), "seed-a", ("sfq",), True, None))
        if move == "go to":
            frame = go_to(lanes, 1000, "t").frames[-1]
        else:
            asks = 300 if move.endswith("stopped") else 10**6
            frame = lanes.run_to_end(stopped_after(asks))[-1]
        assert frame.snapshots[0].dequeued > 50  # a long move: many calls since the last frame
        snap = frame.snapshots[0]
        assert snap.decision is not None and snap.decision.winner is not None
        served = [c for c in snap.decision.candidates if c.fate == "served"]
        assert len(snap.taken) <= len(served) + 4  # one instant's, not the move's hundreds
        if snap.taken:  # (a last step may take nothing: the why then says the last call's)
            assert snap.taken[0].key == snap.decision.winner.key  # the line names its winner
    finally:
        lanes.close()


@pytest.mark.parametrize("move", ["go to", "run to the end"])
def test_a_long_move_keeps_at_least_50_frames_spread_by_time_for_the_scrubber(
    client: redis.Redis, prefix: str, move: str
) -> None:
    lanes = Lockstep(client, prefix)
    try:
        lanes.start(Setup(scenario_files.load_any("ck_skew"), "seed-a", ("sfq",), True, None))
        if move == "go to":
            frames = go_to(lanes, 2000, "t").frames
        else:
            frames = lanes.run_to_end(lambda: False)
        times = [f.snapshots[0].t for f in frames]
        assert len(frames) >= 50  # issue 37 item 5: `[` went t=2285 -> 305 -> 0
        assert times == sorted(set(times))  # one frame a moment, oldest first
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert max(gaps) <= 4 * times[-1] / 50  # spread over the move, not bunched at an end
        assert frames[-1].done if move != "go to" else times[-1] >= 2000
    finally:
        lanes.close()


def test_a_step_without_a_call_says_the_env_was_full_then_not_now(
    client: redis.Redis, prefix: str
) -> None:
    """A step scenario's step with the env full makes no call, then its acks free slots: the
    line beside `0/1 held · free 1` must not say the env is full (issue 37 item 3)."""
    snaps = [s for s in stepped(client, prefix, "micro_skew", "baseline", 60) if s.called is False]
    freed = [s for s in snaps if s.full is None]
    assert freed  # such steps happen: the env full at the call, slots freed by its acks
    palette = KeyPalette([], [])
    for snap in freed:
        line = this_step(snap, palette).plain
        assert "(env full)" not in line and "was full at the call" in line, line


def test_run_until_served_stops_for_a_key_outside_the_rows_a_frame_carries(
    client: redis.Redis, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 10,000 keys a frame carries 100 rows: `u` on light-5000 ran to the end, its row never
    in the frames it looked at. Here a frame carries 2 rows of ck_skew's 6 keys."""
    monkeypatch.setattr(viewing, "VIEW_ROWS", 2)
    setup = Setup(scenario_files.load_any("ck_skew"), "seed-a", ("sfq",), True, None)
    player = Player(Lockstep(client, prefix), setup)
    try:
        start = player.wait(player.start(setup))
        assert start is not None and "light-4" not in start.snapshots[0].rows
        served = []
        for _ in range(2):  # its first run served, then its next (not the one served before)
            move = player.until_served("light-4", list(setup.key_order()))
            assert isinstance(move, Ask)
            result = player.submit(move).result()
            assert isinstance(result, Jump) and result.note is not None
            assert result.note.startswith("light-4 served at"), result.note
            player.landed(result.frames, move.landing)
            served.append(result.frames[-1].snapshots[0].rows["light-4"].dequeued)
            player.wait(player.advance(instant=False))  # a frame without light-4's row
        assert served == [1, 2]
    finally:
        player.close()
