"""Messages up from the driver thread: frames to show, or a failure to report."""

from __future__ import annotations

from textual.message import Message

from ckviz.errors import CkvizError, ExitCode
from ckviz.tui.lanes import Frame


class Stepped(Message):
    """A driver job finished: the frames it produced, oldest first (often just one)."""

    def __init__(self, frames: tuple[Frame, ...], fresh: bool = False,
                 redrawn: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.frames = frames
        self.fresh = fresh  # a new session: the recording starts over
        self.redrawn = redrawn  # the live moment again, for another view: it replaces the last


class DriverCrashed(CkvizError):
    """A driver job raised something unexpected: shown in the app like any other failure."""

    exit_code = ExitCode.CHECK_FAILED


class DriverFailed(Message):
    """A driver job raised a ckviz error (Redis gone, an invariant broken)."""

    def __init__(self, error: CkvizError) -> None:
        super().__init__()
        self.error = error
