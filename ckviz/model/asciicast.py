"""asciicast v2, the file format asciinema records and plays: a header line (a JSON object:
version 2, width, height, timestamp, ...), then one event per line, `[time, code, data]`:
seconds since the start, "o" for output (what the terminal was sent), "r" for a resize
("WIDTHxHEIGHT"), "i" for input, "m" for a marker. `ckviz --record` writes output and resizes
(tui/casting.py);
`ckviz replay` and asciinema play it back; replay reads it line by line (CastReader)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ckviz.errors import UsageError, echo
from ckviz.inputs.files import open_regular, why

VERSION = 2
OUTPUT, RESIZE = "o", "r"
EVENT_CODES = frozenset({OUTPUT, RESIZE, "i", "m"})
MAX_LINE_BYTES = 16 * 1024 * 1024  # one event; a 500x200 truecolor frame is a few MB
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


def read_cast(path: Path, flag: str) -> Cast:
    """The whole cast in `path` (for a small one: tests, tools); `replay` streams it."""
    with CastReader(path, flag) as reader:
        header = reader.header
        return Cast(header.width, header.height, header.timestamp, list(reader.events()))


class CastReader:
    """A cast read line by line, checked as it goes: the memory it needs is one line's, so a
    1 GiB recording plays in the same memory as a small one. Only a regular file is read
    (inputs/files.py): a device or a FIFO is refused, never read without end or waited on.
    Anything asciinema could not play is a UsageError naming the file and the line."""

    def __init__(self, path: Path, flag: str) -> None:
        self._where = f"{flag}: {echo(str(path))}"
        try:
            self._file = open_regular(path)
        except FileNotFoundError:
            raise UsageError(f"{self._where}: file not found") from None
        except IsADirectoryError:
            raise UsageError(f"{self._where} is a directory; give an asciicast file") from None
        except OSError as exc:
            raise UsageError(f"{self._where}: cannot read: {why(exc)}") from None
        self._number = 0
        try:
            first = self._line()
            if first is None:
                raise UsageError(f"{self._where}: empty, not an asciicast file")
            try:
                self.header = Header(*_header(_json(first)))
            except ValueError as exc:
                raise self._bad(exc) from None
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> CastReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    def events(self) -> Iterator[Event]:
        last = 0.0
        while (line := self._line()) is not None:
            if not line.strip():
                continue
            try:
                event = _event(_json(line), last)
            except ValueError as exc:
                raise self._bad(exc, f"line {self._number}: ") from None
            last = event.time
            yield event

    def _line(self) -> str | None:
        """The next line (None at the end), at most MAX_LINE_BYTES."""
        try:
            raw = self._file.readline(MAX_LINE_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"{self._where}: cannot read: {why(exc)}") from None
        if not raw:
            return None
        self._number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise UsageError(
                f"{self._where}: line {self._number}: longer than {MAX_LINE_BYTES:,} bytes"
            )
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(
                f"{self._where}: cannot read: line {self._number} is not UTF-8 text"
            ) from None

    def _bad(self, exc: ValueError, where: str = "") -> UsageError:
        return UsageError(f"{self._where}: {where}{exc}")


def _json(line: str) -> object:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError("not valid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer past Python's digit limit
        raise ValueError(f"not valid JSON ({exc})") from None


def _header(header: object) -> tuple[int, int, int | None]:
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


def _event(value: object, last: float) -> Event:
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
