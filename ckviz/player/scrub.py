"""Moving through the recording at a meeting's pace: the timeline scrubber (`[` / `]`, or a
click or drag on the keys over time strip) and bookmarks (`m` marks the moment shown, `'` goes
back to the marks, newest first). Textual-free: the screens turn keys and clicks into these
moves and post them to the app like any other."""

from __future__ import annotations

from ckviz.player.moves import BELL, Move, Refused, Show
from ckviz.player.player import Player

PARTS = 10  # `[` / `]` jump a tenth of the frames recorded (at least one)


def shown_time(player: Player) -> int | None:
    current = player.recording.current
    return None if current is None else min(current.times)


def scrub(player: Player, direction: int) -> Move:
    """A tenth of the recording back (`direction` -1) or forward (+1), within it."""
    recording = player.recording
    if player.busy or not recording.frames or player.error is not None:
        return BELL
    jump = max(1, len(recording.frames) // PARTS)
    cursor = min(len(recording.frames) - 1, max(0, recording.cursor + direction * jump))
    if cursor == recording.cursor:
        return BELL
    player.playing = False
    recording.cursor = cursor
    return Show(recording.frames[cursor])


def scrub_to(player: Player, target: int) -> Move:
    """The first frame at or after `target` (a click on the strip's time axis), never past
    the live moment: within the recording a recorded frame, before it a replay."""
    live = player.recording.frames[-1] if player.recording.frames else None
    if live is None or player.busy:
        return BELL
    return player.go_to(max(0, min(target, min(live.times))))


def mark(player: Player) -> Move:
    """Mark the moment shown; the note says which mark it is."""
    marks = player.marks
    marks.follow(player.setup)
    t = shown_time(player)
    if t is None:
        return BELL
    if t not in marks.times:
        marks.times.append(t)
    marks.shown = 0
    unit = "step" if player.steps else "t="
    return Refused(f"mark {marks.times.index(t) + 1}: {unit}{_at(t, player)}", "information")


def back_to_mark(player: Player) -> tuple[Move, str | None]:
    """Go to the newest mark, then (pressed again) the one before, round and round; and the
    note that says where."""
    marks = player.marks
    marks.follow(player.setup)
    if not marks.times:
        return Refused("no mark yet: m marks the moment shown", "information"), None
    index = len(marks.times) - 1 - marks.shown % len(marks.times)
    marks.shown += 1
    t = marks.times[index]
    unit = "step" if player.steps else "t="
    return scrub_to(player, t), f"mark {index + 1}: {unit}{_at(t, player)}"


def _at(t: int, player: Player) -> str:
    return f" {t}" if player.steps else f"{t}ms"
