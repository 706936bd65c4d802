"""The `/` key filter: which keys the panes list, matched as fzf does by default.

A term matches a key when its characters appear in the key in order, case-insensitively
(`lt1` matches `light-1`); several terms separated by spaces must all match. Textual-free,
so it is tested on its own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ckviz.model.snapshot import KeyRow

Item = TypeVar("Item")


def fuzzy_match(terms: Sequence[str], key: str) -> bool:
    """Every (casefolded) term's characters appear in `key` in order."""
    folded = key.casefold()
    for term in terms:
        position = 0
        for char in term:
            position = folded.find(char, position)
            if position < 0:
                return False
            position += 1
    return True


def one_key(typed: str, keys: Sequence[str]) -> tuple[str | None, str]:
    """The key `typed` names: exactly, else as the one fuzzy match; (None, why) if none or
    several match."""
    if typed in keys:
        return typed, ""
    found = [k for k in keys if fuzzy_match(typed.casefold().split(), k)]
    if len(found) == 1:
        return found[0], ""
    return None, f"{len(found)} keys match" if found else "no key matches"


def subsequence(term: str) -> re.Pattern[str]:
    """`term`'s characters in order, anything between: fuzzy_match's test of one term, run by
    the regular expression engine (100,000 keys in a few tens of ms, not most of a second).
    Between two characters, anything but the second: the first place it can go is taken, as
    fuzzy_match's walk takes it, so nothing is tried twice."""
    if not term:
        return re.compile("")
    parts = [re.escape(term[0])]
    for char in term[1:]:
        parts.append(f"[^{re.escape(char)}]*{re.escape(char)}")
    return re.compile("".join(parts))


@functools.lru_cache(maxsize=2)
def casefolded(names: tuple[str, ...]) -> tuple[str, ...]:
    """`names` casefolded, kept for the run's key names (one shared tuple a run long): each
    query then costs one search per key (100,000 keys: folding them took as long again)."""
    return tuple(name.casefold() for name in names)


class KeyFilter:
    """One query, remembered per key: a pane asks about the same keys every step, so a key is
    matched once per query, not once per frame."""

    def __init__(self, query: str = "") -> None:
        self.query = query.strip()
        self._terms = self.query.casefold().split()
        self._patterns = [subsequence(term).search for term in self._terms]
        self._known: dict[str, bool] = {}
        # per row count: the positions of the matching rows in the last `keep_rows` call
        self._positions: dict[int, list[int]] = {}
        # keep's last answer: for which tuple of items, by which key, and the items kept
        self._kept: tuple[tuple[Any, ...], Callable[[Any], str], list[Any]] | None = None

    def __bool__(self) -> bool:
        return bool(self._terms)

    def _match(self, key: str) -> bool:
        folded = key.casefold()
        return all(search(folded) for search in self._patterns)

    def matches(self, key: str) -> bool:
        if not self._terms:
            return True
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = self._match(key)
        return known

    def keep(self, items: Sequence[Item], key: Callable[[Item], str]) -> list[Item]:
        """The items whose key matches, in their order (everything when there is no query).
        Every key of the run is asked about by the player and the screen alike: the answer for
        the same sequence (a snapshot's key names are one shared tuple) is kept, not redone."""
        if not self:
            return list(items)
        kept = self._kept
        if kept is not None and kept[0] is items and kept[1] is key:
            return list(kept[2])
        if key is str and isinstance(items, tuple):  # every key of the run: folded once
            chosen = self._searched(items, casefolded(items))
        else:
            match = self._match
            chosen = [item for item in items if match(key(item))]
        if isinstance(items, tuple):  # immutable: the same object means the same items
            self._kept = (items, key, chosen)
        return list(chosen)

    def _searched(self, items: tuple[Item, ...], folded: tuple[str, ...]) -> list[Item]:
        """The items whose casefolded name (`folded`, in step) every term's pattern finds."""
        if len(self._patterns) == 1:
            (search,) = self._patterns
            return [item for item, name in zip(items, folded, strict=True) if search(name)]
        patterns = self._patterns
        pairs = zip(items, folded, strict=True)
        return [item for item, name in pairs if all(search(name) for search in patterns)]

    def keep_rows(self, rows: Sequence[KeyRow]) -> list[KeyRow]:
        """`keep(rows)` for a snapshot's per-key rows, whose order is the scenario's and does
        not change between steps: the matching positions are found once, then only checked,
        so a step costs the matches, not every key (10,000 keys, a few matching)."""
        if not self:
            return list(rows)
        positions = self._positions.get(len(rows))
        if positions is None or any(not self.matches(rows[i].key) for i in positions):
            positions = [i for i, row in enumerate(rows) if self.matches(row.key)]
            self._positions[len(rows)] = positions
        return [rows[i] for i in positions]


NO_FILTER = KeyFilter()
