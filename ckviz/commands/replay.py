"""`ckviz replay`: play a session recorded with `ckviz --record` (or any asciicast v2 file)
back to this terminal, at its own pace or faster. Only the control sequences a recording of
ckviz contains reach the terminal (model/controls.py): a cast that would write the clipboard,
set the title or make the terminal answer has those sequences dropped, and replay says how
many. The cast is read as it plays, line by line."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from ckviz.commands.parsing import CommandParser
from ckviz.errors import UsageError
from ckviz.inputs.casts import CastReader
from ckviz.model.asciicast import OUTPUT, Event, Header
from ckviz.model.controls import ControlFilter

MIN_SPEED, MAX_SPEED = 0.001, 1000.0
LONGEST_SLEEP_S = 3600.0  # a pause is slept in pieces: time.sleep() overflows past ~292 years
# What a recording cut short (or stopped with ctrl+c) may leave on: mouse and focus reports,
# bracketed paste, the keyboard protocol, no line wrap, the alternate screen, a hidden cursor.
# Sent after playing (to a terminal only) so the shell is usable again.
RESTORE = (
    "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[<u"
    "\x1b[?7h\x1b[?1049l\x1b[?25h"
)


def build_parser() -> argparse.ArgumentParser:
    p = CommandParser(prog="ckviz replay", description=__doc__)
    p.add_argument("cast", metavar="SESSION.cast", help="an asciicast v2 file (ckviz --record)")
    p.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="play X times as fast (default 1: the recorded timing)",
    )
    p.add_argument(
        "--max-pause",
        type=float,
        default=None,
        metavar="S",
        help="shorten every pause longer than S seconds to S (after --speed)",
    )
    return p


def main(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    if not MIN_SPEED <= ns.speed <= MAX_SPEED:  # also refuses nan
        raise UsageError(f"replay: --speed: {ns.speed:g} is outside [{MIN_SPEED:g}, {MAX_SPEED:g}]")
    if ns.max_pause is not None and not ns.max_pause >= 0:
        raise UsageError(f"replay: --max-pause: {ns.max_pause:g} is not a number of seconds >= 0")
    controls = ControlFilter()
    with CastReader(Path(ns.cast), "replay") as cast:
        terminal = sys.stdout.isatty()
        if terminal:
            warn_if_smaller(cast.header)
        try:
            play(cast.events(), controls, ns.speed, ns.max_pause)
        finally:
            if terminal:
                sys.stdout.write(RESTORE)
                sys.stdout.flush()
            say_dropped(controls.finish())
    return 0


def play(
    events: Iterator[Event], controls: ControlFilter, speed: float, max_pause: float | None
) -> None:
    """Each output event written when its time comes (scaled, long pauses cut), measured from
    the start so that the time spent writing does not add up into drift; only the control
    sequences a ckviz recording contains pass."""
    start = time.monotonic()
    offset = 0.0  # seconds the cut pauses saved so far
    previous = 0.0
    for event in events:
        at = event.time / speed
        if max_pause is not None and at - previous > max_pause:
            offset += at - previous - max_pause
        previous = at
        pause_until(start + at - offset)
        if event.code == OUTPUT:
            sys.stdout.write(controls.feed(event.data))
            sys.stdout.flush()


def pause_until(moment: float) -> None:
    while (wait := moment - time.monotonic()) > 0:
        time.sleep(min(wait, LONGEST_SLEEP_S))


def say_dropped(dropped: int) -> None:
    if dropped:
        print(
            f"ckviz replay: dropped {dropped} control sequence(s) not replayed (queries the "
            "terminal would answer, clipboard, title, pointer shape, ...)",
            file=sys.stderr,
        )


def warn_if_smaller(cast: Header) -> None:
    import shutil

    columns, lines = shutil.get_terminal_size()
    if columns < cast.width or lines < cast.height:
        print(
            f"ckviz replay: recorded at {cast.width}x{cast.height}, this terminal is "
            f"{columns}x{lines}: enlarge it, or the picture wraps",
            file=sys.stderr,
        )
