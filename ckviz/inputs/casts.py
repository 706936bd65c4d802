"""Reading an asciicast v2 file (model/asciicast.py) line by line, checked as it goes: what
`ckviz replay` plays. Only a regular file is read (inputs/files.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ckviz.errors import UsageError, echo_path
from ckviz.inputs.files import open_regular, why
from ckviz.model.asciicast import Cast, Event, Header, check_event, check_header

MAX_LINE_BYTES = 16 * 1024 * 1024  # one event; a 500x200 truecolor frame is a few MB


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
        self._where = f"{flag}: {echo_path(str(path))}"
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
                self.header = Header(*check_header(_json(first)))
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
                event = check_event(_json(line), last)
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
