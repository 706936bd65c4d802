"""What ckviz prints to a GitHub Actions log, neutralised. The runner acts on lines of the log:
`::name ...::` at a line's start (after blanks) is a workflow command, `##[name]` anywhere in
a line is one too (`##[stop-commands]` would silence ckviz's own `::error` lines). Key names,
scenario names and paths, a trace's or a results file's text are other people's: under
`GITHUB_ACTIONS=true` every line ckviz writes to stdout or stderr goes through `LogNeutraliser`
(outputs/streams.py), which puts a backslash before the `[` of `##[` and before the second
colon of a line-starting `::` (`##\\[error]`, `:\\:error`), also when the sequence is split
across two writes. ckviz's own workflow commands (`own_command`) pass as they are; the user
text inside them is escaped as the runner's toolkit escapes data (`annotation_data`,
`annotation_property`)."""

from __future__ import annotations

import os
import re

ENV_ACTIONS = "GITHUB_ACTIONS"
_OWN: set[str] = set()  # ckviz's own workflow command lines, written as they are
_HASHES = re.compile(r"(?<=##)\[")


def under_actions() -> bool:
    return os.environ.get(ENV_ACTIONS) == "true"


def annotation_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped, as GitHub's toolkit does, and
    `##[` broken."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _HASHES.sub(r"\\[", escaped)


def annotation_property(text: str) -> str:
    """A workflow command's property value: also `:` and `,` escaped."""
    return annotation_data(text).replace(":", "%3A").replace(",", "%2C")


def own_command(line: str) -> str:
    """`line` (built with the escapes above) is ckviz's own workflow command: printed as is."""
    _OWN.add(line)
    return line


def neutralise(text: str) -> str:
    """`text` made inert as whole lines (for a caller that has them whole)."""
    return LogNeutraliser()(text)


class LogNeutraliser:
    """One stream's text, neutralised as it is written, chunk by chunk: it remembers what the
    current line began with and its last two characters, so a command split across two
    writes is caught too."""

    def __init__(self) -> None:
        self._start: str | None = ""  # the line so far while it is blanks and one colon at most
        self._tail = ""  # the line's last two characters written

    def __call__(self, text: str) -> str:
        out: list[str] = []
        for piece in text.splitlines(keepends=True):
            out.append(self._piece(piece))
            if piece.endswith("\n"):
                self._start, self._tail = "", ""
        return "".join(out)

    def _piece(self, piece: str) -> str:
        if self._start == "" and piece.rstrip("\n") in _OWN:
            return piece
        start = len(self._tail)
        combined = self._tail + piece
        escaped = _HASHES.sub(lambda m: "\\[" if m.start() >= start else "[", combined)[start:]
        escaped = self._line_start(escaped)
        kept = escaped.rstrip("\n")
        self._tail = (self._tail + kept)[-2:]
        return escaped

    def _line_start(self, piece: str) -> str:
        """A backslash before the second colon of a line that starts (after blanks) `::`."""
        if self._start is None:
            return piece
        full = self._start + piece
        stripped = full.lstrip(" \t")
        blanks = len(full) - len(stripped)
        if stripped.startswith("::") and blanks + 1 >= len(self._start):
            at = blanks + 1 - len(self._start)
            piece = piece[:at] + "\\" + piece[at:]
            self._start = None
        elif stripped in ("", ":") and "\n" not in piece:
            self._start = full
        else:
            self._start = None
        return piece
