"""How far a long move (`>`, `:`, `u`) has gone while it runs: the lanes' time, the runs out,
how fast it goes and, where its end is known, when it should get there.

Textual-free: the driver thread tells a `MoveProgress` where the lanes stand between rounds
(`heard`, a few attribute writes: cheap beside a round), and the app's timer reads its `line`
a few times a second. Every value the driver writes is a new immutable reading, swapped in one
assignment, so the reader never sees half of one. Wall time is the user's (how long to wait),
never the run's: nothing here feeds the simulation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Heard = Callable[[int, int], None]  # (the slowest lane's time, runs out over every lane)
Goal = Literal["end", "time", "served"]

WINDOW_S = 5.0  # the rate is taken over about this much of the latest wall time
MARK_S = 0.25  # a reading is kept for the rate at most this often


@dataclass(frozen=True, slots=True)
class Reading:
    """Where the lanes stood at a wall moment (time.monotonic seconds)."""

    t: int  # the slowest lane's clock (ms, or steps)
    out: int  # runs dequeued so far, every lane
    at: float


class MoveProgress:
    """One long move's progress: where it started, where it is, the readings the rate is
    taken over. `total` is the workload's runs over every lane (the end of a run to the end),
    `target` a go to's time."""

    def __init__(
        self,
        goal: Goal,
        what: str,
        start: tuple[int, int],
        total: int,
        target: int | None = None,
        unit: str = "ms",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.goal, self.what, self.total, self.target, self.unit = goal, what, total, target, unit
        self._clock = clock
        first = Reading(start[0], start[1], clock())
        self.last = first
        self._marks: tuple[Reading, ...] = (first,)  # oldest first, within about WINDOW_S

    def heard(self, t: int, out: int) -> None:
        """The driver thread: the lanes stand at `t` with `out` runs dequeued."""
        now = Reading(t, out, self._clock())
        self.last = now
        if now.at - self._marks[-1].at >= MARK_S:
            kept = tuple(m for m in self._marks if now.at - m.at <= WINDOW_S)
            self._marks = (*(kept or self._marks[-1:]), now)

    def rates(self) -> tuple[float, float] | None:
        """Runs out and logical time per wall second over the latest readings (None: too
        soon to tell)."""
        first, last = self._marks[0], self.last
        span = last.at - first.at
        if span < MARK_S:
            return None
        return (last.out - first.out) / span, (last.t - first.t) / span

    def eta(self) -> float | None:
        """Wall seconds left: runs left at the runs' rate (a run to the end), time left at the
        clock's rate (a go to); None where the end is unknown (until a key is served) or
        nothing moved yet."""
        rates, last = self.rates(), self.last
        if rates is None:
            return None
        runs, clock = rates
        if self.goal == "end" and runs > 0:
            return max(0, self.total - last.out) / runs
        if self.goal == "time" and self.target is not None and clock > 0:
            return max(0, self.target - last.t) / clock
        return None

    def line(self, short: bool = False) -> str:
        """`running to the end · t=4,120ms · 812/22,000 runs out · 14.2 runs/s · ETA 25m
        40s (esc stops)`; `short` (a narrow terminal): `t=4,120ms · 812/22,000 out · ...`."""
        last, rates = self.last, self.rates()
        where = f"step {last.t:,}" if self.unit == "step" else f"t={last.t:,}ms"
        out = f"{last.out:,}/{self.total:,} {'out' if short else 'runs out'}"
        parts = [where, out] if short else [self.what, where, out]
        parts.append("… runs/s" if rates is None else f"{_rate(rates[0])} runs/s")
        eta = self.eta()
        if eta is not None:
            parts.append(f"ETA {duration(eta)}")
        elif self.goal != "served":
            parts.append("ETA …")
        return " · ".join(parts) + " (esc stops)"


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def duration(seconds: float) -> str:
    """`8s`, `4m 05s`, `2h 13m`."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"
