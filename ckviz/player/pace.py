"""How fast play really goes (Textual-free): the instants the play ticks asked for over the last
few seconds. At 10,000 keys a tick's instants take longer than the tick, so the speed asked for
(133 instants/s) says nothing of what is shown (~6/s); the status line says both."""

from __future__ import annotations

import time
from collections import deque

WINDOW_S = 3.0  # the ticks looked at: recent enough to follow a change of load


class Pace:
    """The play ticks asked lately: when, and how many instants each."""

    def __init__(self) -> None:
        self._ticks: deque[tuple[float, int]] = deque()

    def reset(self) -> None:
        """Play stopped or changed speed: what went before says nothing of what comes."""
        self._ticks.clear()

    def ticked(self, instants: int, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._ticks.append((now, instants))
        while self._ticks and self._ticks[0][0] < now - WINDOW_S:
            self._ticks.popleft()

    def rate(self) -> float | None:
        """Instants a second, from the first tick kept to the last (None: fewer than two)."""
        if len(self._ticks) < 2:
            return None
        span = self._ticks[-1][0] - self._ticks[0][0]
        instants = sum(n for _, n in list(self._ticks)[1:])
        return instants / span if span > 0 else None
