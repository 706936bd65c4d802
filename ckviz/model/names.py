"""Checks on lists of names that several files and flags share."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

from ckviz.errors import UsageError, echo, has_control_characters

T = TypeVar("T")
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders names as people read them: `reg-2` before `reg-10`, `#9` before
    `#10` (byte order, Redis's, puts `reg-10` first and reads like a FIFO bug)."""
    return tuple(
        (1, int(part)) if part.isdigit() else (0, part) for part in _DIGITS.split(name) if part
    )


def first_duplicate(items: Iterable[T]) -> T | None:
    """The first item that appeared before, or None when all differ."""
    seen: set[T] = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None


def check_seed(seed: str, flag: str = "--seed") -> str:
    """A usable seed: not blank, no control characters (it is printed in tables)."""
    if not seed.strip():
        raise UsageError(f"{flag}: empty seed")
    if has_control_characters(seed):  # a seed is printed in tables and progress lines
        raise UsageError(f"{flag}: seed '{echo(seed)}' contains control characters")
    return seed
