"""Textual-free pieces of the app: the recording's cursor and the live fairness figures."""

from __future__ import annotations

from typing import Any

from ckviz.metrics import contention
from ckviz.model.snapshot import DequeueEvent
from ckviz.player.recording import Recording


class FakeFrame:
    """Just enough of a Frame for the recording: its clocks."""

    def __init__(self, *times: int) -> None:
        self.times = times


def frames(*times: int) -> list[Any]:
    return [FakeFrame(t) for t in times]


def test_back_then_forward_replays_the_same_frames() -> None:
    recording = Recording()
    first, *rest = frames(0, 0, 5, 5, 9)
    recording.reset(first)
    for frame in rest:
        assert recording.append(frame)  # live: the view follows
    assert recording.back() is rest[2] and recording.back() is rest[1]
    assert recording.position == (3, 5) and not recording.live
    assert recording.forward() is rest[2]
    assert recording.forward_instant() is rest[3]  # the next frame whose clock moved
    assert recording.live and recording.forward() is None


def test_frames_arriving_while_replaying_do_not_move_the_view() -> None:
    recording = Recording()
    a, b, c = frames(0, 1, 2)
    recording.reset(a)
    recording.append(b)
    recording.back()
    assert not recording.append(c)
    assert recording.current is a and recording.position == (1, 3)


def test_forward_instant_runs_off_the_end_when_the_clock_never_moves() -> None:
    recording = Recording()
    a, b = frames(3, 3)
    recording.reset(a)
    recording.append(b)
    recording.back()
    assert recording.forward_instant() is None and recording.live


def test_the_recording_keeps_at_most_its_limit() -> None:
    recording = Recording(limit=3)
    first, *rest = frames(0, 1, 2, 3, 4)
    recording.reset(first)
    for frame in rest:
        recording.append(frame)
    assert len(recording.frames) == 3 and recording.current is rest[-1]


def test_a_key_not_served_yet_counts_as_starved_while_it_waits() -> None:
    # `heavy` is served at t=0..3 while `light` has waited since t=0: without the waiting
    # key nobody is contended; with it, light's share is 0.
    events = [DequeueEvent("heavy", f"h{i}", 0, i) for i in range(4)]
    weights = {"heavy": 1.0, "light": 1.0}
    assert contention(events, weights) == {}
    ratios = contention(events, weights, waiting_since={"light": 0})
    assert ratios == {"heavy": 2.0, "light": 0.0}
    later = contention(events, weights, waiting_since={"light": 10})  # arrives after them
    assert later == {}
