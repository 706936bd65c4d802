"""asciicast v2, the file format asciinema records and plays: a header line (a JSON object:
version 2, width, height, timestamp, ...), then one event per line, `[time, code, data]`:
seconds since the start, "o" for output (what the terminal was sent), "r" for a resize
("WIDTHxHEIGHT"), "i" for input, "m" for a marker. `ckviz --record` writes output and resizes
(tui/casting.py);
`ckviz replay` and asciinema play it back; replay reads it line by line (inputs/casts.py)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

from ckviz.errors import echo

VERSION = 2
OUTPUT, RESIZE = "o", "r"
EVENT_CODES = frozenset({OUTPUT, RESIZE, "i", "m"})
MAX_TIME_S = 10_000_000.0  # an event's time: a recording longer than four months is no recording


@dataclass(frozen=True, slots=True)
class Event:
    time: float  # seconds since the recording started
    code: str
    data: str


@dataclass(frozen=True, slots=True)
class Cast:
    width: int
    height: int
    timestamp: int | None  # when the recording started (Unix seconds)
    events: list[Event]


def header_line(width: int, height: int, timestamp: int, title: str) -> str:
    header = {
        "version": VERSION,
        "width": width,
        "height": height,
        "timestamp": timestamp,
        "title": title,
        "env": {"TERM": os.environ.get("TERM", "xterm-256color")},
    }
    return json.dumps(header, ensure_ascii=False) + "\n"


def event_line(at: float, code: str, data: str) -> str:
    return json.dumps([round(at, 6), code, data], ensure_ascii=False) + "\n"


@dataclass(frozen=True, slots=True)
class Header:
    width: int
    height: int
    timestamp: int | None


def check_header(header: object) -> tuple[int, int, int | None]:
    where = "line 1 (the header)"
    if not isinstance(header, dict):
        raise ValueError(f"{where}: not a JSON object, so not an asciicast v2 file")
    if header.get("version") != VERSION:
        raise ValueError(f"{where}: version {header.get('version')!r}; this reads version 2")
    size = [header.get(name) for name in ("width", "height")]
    if not all(type(n) is int and n > 0 for n in size):
        raise ValueError(f"{where}: width and height must be positive integers")
    timestamp = header.get("timestamp")
    if timestamp is not None and type(timestamp) is not int:
        raise ValueError(f"{where}: timestamp must be an integer")
    return size[0], size[1], timestamp  # type: ignore[return-value]


def check_event(value: object, last: float) -> Event:
    if not (isinstance(value, list) and len(value) == 3):
        raise ValueError("an event is [time, code, data]")
    at, code, data = value
    if type(at) not in (int, float) or not math.isfinite(at) or at < 0:
        raise ValueError(f"time {at!r} is not a number of seconds")
    if at > MAX_TIME_S:
        raise ValueError(f"time {at:g} is past {MAX_TIME_S:,.0f} s (about four months)")
    if at < last:
        raise ValueError(f"time {at} goes back (the line before says {last})")
    if code not in EVENT_CODES or not isinstance(data, str):
        raise ValueError(f"code {echo(str(code))!r} and data: a code of o, r, i, m and a string")
    return Event(float(at), code, data)
