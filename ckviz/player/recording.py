"""The frames shown so far, so the view can step back and replay forward before going live."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ckviz.player.frames import Frame

HISTORY_LIMIT = 2000
HISTORY_OBJECTS = 200_000  # frames kept x keys: bounds the memory of a many-key recording


class Recording:
    """Frames newest last and a cursor on the one shown; the cursor at the end means live."""

    def __init__(self, limit: int = HISTORY_LIMIT) -> None:
        self.limit = limit
        self.frames: list[Frame] = []
        self.cursor = -1

    def reset(self, frame: Frame) -> None:
        self.frames = [frame]
        self.cursor = 0

    @property
    def live(self) -> bool:
        return self.cursor == len(self.frames) - 1

    @property
    def current(self) -> Frame | None:
        return self.frames[self.cursor] if self.frames else None

    def append(self, frame: Frame) -> bool:
        """Record a new live frame; True if the view follows it (it was not replaying)."""
        following = self.live
        self.frames.append(frame)
        overflow = len(self.frames) - self.limit
        if overflow > 0:
            del self.frames[:overflow]
            self.cursor = max(0, self.cursor - overflow)
        if following:
            self.cursor = len(self.frames) - 1
        return following

    def redraw_live(self, frame: Frame) -> bool:
        """The live frame again under another view; True if the view shows it (not replaying)."""
        if not self.frames:
            return False
        self.frames[-1] = frame
        return self.live

    def back(self) -> Frame | None:
        """The frame before the one shown, or None at the start of the recording."""
        if self.cursor <= 0:
            return None
        self.cursor -= 1
        return self.frames[self.cursor]

    def forward(self) -> Frame | None:
        """The next recorded frame, or None when the view is live."""
        if self.live:
            return None
        self.cursor += 1
        return self.frames[self.cursor]

    def forward_instant(self) -> Frame | None:
        """The first recorded frame whose clocks moved; None if the recording ends first."""
        current = self.current
        if current is None:
            return None
        start = current.times
        while not self.live:
            self.cursor += 1
            if self.frames[self.cursor].times != start:
                return self.frames[self.cursor]
        return None

    def seek(self, reached: Callable[[Frame], bool]) -> Frame | None:
        """Show the first recorded frame for which `reached` holds. None, the cursor staying:
        no such frame, or only the first one kept and it is not the run's start (the frame
        sought may be among those dropped)."""
        for index, frame in enumerate(self.frames):
            if reached(frame):
                if index == 0 and any(s.step for s in frame.snapshots):
                    return None
                self.cursor = index
                return frame
        return None

    @property
    def position(self) -> tuple[int, int]:
        """(shown, recorded), both 1-based counts, for the status line."""
        return self.cursor + 1, len(self.frames)


@dataclass(slots=True)
class Bookmarks:
    """Moments marked in this setup's run (their times, oldest first) and which `'` showed
    last (it cycles back through them)."""

    setup: object = None
    times: list[int] = field(default_factory=list)
    shown: int = 0  # how many `'` presses since the last mark

    def follow(self, setup: object) -> None:
        """A new setup (another discipline, scenario, seed, a restart): its own marks."""
        if setup is not self.setup:
            self.setup, self.times, self.shown = setup, [], 0
