"""The frames a long move keeps on its way (`>`, `:`, `u`), spread by logical time, so the
scrubber steps back through the stretch it ran over, not from its end to before its start.

Textual-free: the lanes and the jumps keep them on the driver thread. A frame is kept once the
slowest lane's clock has moved `every` past the last one kept; when 2 x KEPT are kept, every
other one goes and `every` doubles: between KEPT and 2 x KEPT frames (the move's every instant
when it spans fewer), evenly spread by time, however long the move.
"""

from __future__ import annotations

from ckviz.player.frames import Frame

KEPT = 64  # frames a long move keeps at least, once it spans that many instants


class Samples:
    """Frames kept along one long move, oldest first."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.every = 1  # logical time between two frames kept (ms, or steps)
        self._next: int | None = None  # the earliest time the next frame is kept at

    def due(self, t: int) -> bool:
        """A frame at logical time `t` is to be kept (ask before making one: it costs)."""
        return self._next is None or t >= self._next

    def keep(self, made: list[Frame]) -> None:
        """Keep the frame in `made`, if one was made (none: nothing was due)."""
        if not made:
            return
        frame = made[-1]
        self.frames.append(frame)
        if len(self.frames) >= 2 * KEPT:
            self.frames = self.frames[1::2]  # the newest stays
            self.every *= 2
        self._next = min(frame.times) + self.every

    def ending(self, last: list[Frame]) -> list[Frame]:
        """The frames kept, then `last` (the move's end) in place of one kept at its moment."""
        kept = self.frames
        if last and kept and kept[-1].times == last[-1].times:
            kept = kept[:-1]
        return [*kept, *last]
