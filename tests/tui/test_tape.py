"""The tape's moves over a frame source that is no simulated run: frames of an origin with no
scenario, a source with only the four calls every source has (advance, reframe, view, close)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ckviz.fairness_so_far import SoFar
from ckviz.model.snapshot import ViewRequest
from ckviz.player.frames import Frame, FrameSource
from ckviz.player.moves import BELL, Ask, Show
from ckviz.player.tape import Tape
from tests.tui.fake_source import snapshot

KEYS = ("acme", "beta")


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """An origin with no scenario and no seed (as a live queue's)."""

    title: str = "somewhere"
    seed: None = None
    compare: bool = False
    light_key: None = None

    def key_order(self) -> Sequence[str]:
        return ()


class Counting:
    """A source whose every advance is one more frame: refresh n."""

    def __init__(self) -> None:
        self.made = 0
        self.views: list[ViewRequest] = []
        self.closed = False

    def advance(self, instant: bool, count: int = 1) -> list[Frame]:
        self.made += 1
        return [self._frame()]

    def reframe(self) -> list[Frame]:
        return [self._frame()]

    def set_view(self, view: ViewRequest) -> None:
        self.views.append(view)

    def close(self) -> None:
        self.closed = True

    def _frame(self) -> Frame:
        return Frame(Elsewhere(), (snapshot(KEYS, 0, self.made),), (SoFar(),))


def shown_step(tape: Tape) -> int:
    current = tape.recording.current
    assert current is not None
    return current.snapshots[0].step


def test_a_tape_steps_back_and_forward_over_any_frame_source() -> None:
    source = Counting()
    checked: FrameSource = source  # the protocol's four calls are enough
    tape = Tape(checked, Elsewhere())
    tape.wait(Ask(lambda: source.advance(False), "fresh"))
    for _ in range(3):
        move = tape.advance(instant=False)
        assert isinstance(move, Ask)
        tape.wait(move)
    assert shown_step(tape) == 4 and source.made == 4
    assert isinstance(tape.back(), Show) and isinstance(tape.back(), Show)
    assert shown_step(tape) == 2 and tape.recording.position == (2, 4)
    forward = tape.advance(instant=False)
    assert isinstance(forward, Show) and forward.frame.snapshots[0].step == 3
    assert source.made == 4  # a kept frame is shown, the source not asked
    tape.wait(tape.advance(instant=False))
    tape.wait(tape.advance(instant=False))  # the live end: the source makes one more
    assert shown_step(tape) == 5 and tape.recording.live
    tape.close()
    assert source.closed and tape.advance(instant=False) is BELL


def test_pause_stops_the_ticks_and_a_view_change_redraws_the_live_frame() -> None:
    source = Counting()
    tape = Tape(source, Elsewhere())
    tape.wait(Ask(lambda: source.advance(False), "fresh"))
    assert tape.set_playing(True) and isinstance(tape.tick(), Ask)
    assert not tape.set_playing(False) and tape.tick() is None
    redraw = tape.next_sort()
    assert isinstance(redraw, Ask) and redraw.landing == "redrawn"
    tape.wait(redraw)
    assert source.views[-1].sort == tape.view.sort_by != "scenario"
    assert tape.recording.position == (1, 1)  # the same moment, drawn again
    tape.close()
