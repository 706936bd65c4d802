"""The numbers a JSON file ckviz reads back (a results file, a shard) may hold.

Python reads a JSON integer of any size (up to 4,300 digits) and every figure of the report
turns some into floats: a 400-digit `makespan_ms` passed validation, then overflowed in a
plot. No figure ckviz writes comes near 2^53, past which a JSON number is no longer exact
(JavaScript's `Number.MAX_SAFE_INTEGER`), so a larger one is refused where the file is read,
naming its place. Only a file with a run of 16 digits somewhere is walked.
"""

from __future__ import annotations

import re

SAFE_INTEGER = 2**53 - 1
_LONG_DIGITS = re.compile(r"\d{16}")  # 2^53 has 16 digits: a shorter integer is within it


def too_large(text: str, data: object) -> str | None:
    """Where the first integer past SAFE_INTEGER sits in `data` (parsed from `text`), with
    its size: `scenarios.0.runs.0.metrics.makespan_ms: an integer of 401 digits`; None when
    there is none."""
    if _LONG_DIGITS.search(text) is None:
        return None
    stack: list[tuple[object, tuple[str, ...]]] = [(data, ())]
    while stack:  # a loop, not a recursion: the file may be nested as deep as json allows
        value, path = stack.pop()
        if isinstance(value, dict):
            stack += [(v, (*path, str(k))) for k, v in reversed(value.items())]
        elif isinstance(value, list):
            stack += [(v, (*path, str(i))) for i, v in reversed(list(enumerate(value)))]
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE_INTEGER:
            where = ".".join(path) or "(top level)"
            digits = len(str(abs(value)))
            return f"{where}: an integer of {digits} digits, past 2^53 (no figure is that large)"
    return None
