"""Long moves through a run in one driver job: go to a time (or step), run until a key is
served. Textual-free: the app runs these on its driver thread and shows the frame they end on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ckviz.model.snapshot import Snapshot
from ckviz.player.frames import Frame, Setup
from ckviz.player.lanes import LaneSource
from ckviz.player.progress import Heard
from ckviz.player.sampling import Samples
from ckviz.sim.engine import roomy_young_generation

Reached = Callable[[Frame], bool]
Stop = Callable[[], bool]  # asked between rounds: the user wants the jump to stop here


def never() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Jump:
    """What a long move ends on (its last frame), the frames kept on the way (ckviz.tui.
    sampling), and what to tell the user."""

    frames: list[Frame] = field(default_factory=list)
    note: str | None = None
    severity: Literal["information", "warning", "error"] = "information"


def at_time(target: int) -> Reached:
    """Every lane's clock has reached `target` (ms, or steps for a step scenario)."""
    return lambda frame: min(frame.times) >= target


def served_count(snapshot: Snapshot, key: str) -> int:
    """Runs of `key` dequeued so far, by its row (the jump's view carries it: Player)."""
    row = snapshot.rows.get(key)
    return 0 if row is None else row.dequeued


def served_again(frame: Frame, key: str) -> Reached:
    """Some lane has dequeued a run of `key` since `frame`."""
    before = [served_count(s, key) for s in frame.snapshots]

    def reached(now: Frame) -> bool:
        return any(served_count(s, key) > b for s, b in zip(now.snapshots, before, strict=True))

    return reached


def nowhere(_t: int, _out: int) -> None:
    return None


def advance_until(
    source: LaneSource, reached: Reached, instant: bool, stop: Stop = never, heard: Heard = nowhere
) -> tuple[list[Frame], str]:
    """Advance one round (or instant) at a time until `reached`, the end, or `stop()`: the
    frames kept on the way (by logical time, the last one last) and which ("reached", "end",
    "stopped"). `heard` hears where the lanes stand after each round."""
    kept, last = Samples(), list[Frame]()
    with roomy_young_generation():  # a long loop of short-lived objects, as a run's
        while frames := source.advance(instant, 1):
            last = frames[-1:]
            heard(min(last[0].times), sum(s.dequeued for s in last[0].snapshots))
            if kept.due(min(last[0].times)):
                kept.keep(last)
            if reached(last[0]):
                return kept.ending(last), "reached"
            if stop():
                return kept.ending(last), "stopped"
    return kept.ending(last), "end"


def go_to(
    source: LaneSource, target: int, unit: str, stop: Stop = never, heard: Heard = nowhere
) -> Jump:
    """Forward to the first instant at or after `target`."""
    frames, outcome = advance_until(source, at_time(target), True, stop, heard)
    if outcome == "reached":
        return Jump(frames)
    if outcome == "stopped":
        return Jump(frames, f"stopped on the way to {unit} {target}")
    return Jump(frames, f"the run ended before {unit} {target}", "warning")


def replay_to(
    source: LaneSource,
    setup: Setup,
    target: int,
    unit: str,
    stop: Stop = never,
    heard: Heard = nowhere,
) -> Jump:
    """Before the recording's first frame: start over and run to `target` (the start frame
    first: the recording starts over from it)."""
    start = source.start(setup)
    if start and at_time(target)(start[0]):
        return Jump(start)
    jump = go_to(source, target, unit, stop, heard)
    return Jump([*start, *jump.frames], jump.note, jump.severity)


def until_served(
    source: LaneSource,
    frame: Frame,
    key: str,
    steps: bool,
    stop: Stop = never,
    heard: Heard = nowhere,
) -> Jump:
    """Round by round until some lane dequeues a run of `key`, or the end (said so)."""
    frames, outcome = advance_until(source, served_again(frame, key), False, stop, heard)
    if outcome == "reached":
        return Jump(frames, f"{key} served at {when(frames[-1], steps)}")
    if outcome == "stopped":
        return Jump(frames, f"stopped before {key} was served")
    return Jump(frames, f"{key} was not served again before the end", "warning")


def when(frame: Frame, steps: bool) -> str:
    """`t=120ms (round 14)`, or `step 12` in a step scenario (a round is a step's call)."""
    times = "/".join(str(t) for t in frame.times)
    if steps:
        return f"step {times}"
    return f"t={times}ms (round {'/'.join(str(s.step) for s in frame.snapshots)})"
