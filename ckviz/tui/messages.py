"""Messages to the app: frames from the driver thread, a failure to report, a move to make."""

from __future__ import annotations

from textual.message import Message

from ckviz.errors import CkvizError, ExitCode
from ckviz.player.frames import Frame
from ckviz.player.moves import Landing, Move


class Stepped(Message):
    """A driver job finished: the frames it produced, oldest first (often just one)."""

    def __init__(self, frames: tuple[Frame, ...], landing: Landing = "step") -> None:
        super().__init__()
        self.frames = frames
        self.landing = landing  # how the player records them (Ask's landing)


class DriverCrashed(CkvizError):
    """A driver job raised something unexpected: shown in the app like any other failure."""

    exit_code = ExitCode.CHECK_FAILED


class DriverFailed(Message):
    """A driver job raised a ckviz error (Redis gone, an invariant broken)."""

    def __init__(self, error: CkvizError) -> None:
        super().__init__()
        self.error = error


class Perform(Message):
    """A screen's action made a move of the player (a pick, a sort, a go to): the app carries
    it out, as it does its own actions' (it owns the driver thread and the play timer)."""

    def __init__(self, move: Move, refresh: bool = False) -> None:
        super().__init__()
        self.move = move
        self.refresh = refresh  # show the frame the player is on first (a replay caught up)
