"""Checks on lists of names that several files and flags share."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import TypeVar

from ckviz.errors import UsageError, echo, has_control_characters

T = TypeVar("T")
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders names as people read them: `reg-2` before `reg-10`, `#9` before
    `#10` (byte order, Redis's, puts `reg-10` first and reads like a FIFO bug)."""
    return tuple(
        (1, int(part)) if part.isdecimal() else (0, part) for part in _DIGITS.split(name) if part
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


# Characters a table would show as nothing, or that reorder what follows: format characters
# (zero-width space and joiners, bidi overrides and isolates, the BOM, soft hyphen), line and
# paragraph separators, spaces other than the ASCII one, surrogates and private use.
_HIDDEN_CATEGORIES = frozenset({"Cf", "Cc", "Zl", "Zp", "Cs", "Co"})
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")  # Hangul fillers: drawn as blank


def hidden(char: str) -> bool:
    """Shown as nothing, or reordering what follows; a line break and a tab are layout."""
    if char in "\n\t":
        return False
    category = unicodedata.category(char)
    return category in _HIDDEN_CATEGORIES or (category == "Zs" and char != " ") or char in _FILLERS


def shown_name(name: str) -> str:
    """A name as every table shows it (terminal, Markdown, HTML, the app's key column): each
    invisible or bidi character escaped (`\\u200b`, `\\u202e`), so two keys that differ only
    by one no longer look the same, and an override cannot reorder the row."""
    if name.isascii() and name.isprintable():
        return name
    return "".join(_escaped(c) if hidden(c) else c for c in name)


def _escaped(char: str) -> str:
    code = ord(char)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def look_alikes(names: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs of different names that read the same: equal once invisible characters are
    dropped and both are NFKC-normalised (composed and decomposed `café`, a zero-width space,
    a full-width letter). The first name of each look-alike group, with each other one."""
    first: dict[str, str] = {}
    pairs = []
    for name in names:
        skeleton = unicodedata.normalize("NFKC", "".join(c for c in name if not hidden(c)))
        seen = first.setdefault(skeleton, name)
        if seen != name:
            pairs.append((seen, name))
    return pairs


def code_points(name: str) -> str:
    """`name` with everything beyond ASCII as an escape: where two look-alikes differ."""
    return name.encode("ascii", "backslashreplace").decode("ascii")
