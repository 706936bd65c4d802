"""The `/` key filter: which keys the panes list, matched as fzf does by default.

A term matches a key when its characters appear in the key in order, case-insensitively
(`lt1` matches `light-1`); several terms separated by spaces must all match. Textual-free,
so it is tested on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

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


class KeyFilter:
    """One query, remembered per key: a pane asks about the same keys every step, so a key is
    matched once per query, not once per frame."""

    def __init__(self, query: str = "") -> None:
        self.query = query.strip()
        self._terms = self.query.casefold().split()
        self._known: dict[str, bool] = {}
        # per row count: the positions of the matching rows in the last `keep_rows` call
        self._positions: dict[int, list[int]] = {}

    def __bool__(self) -> bool:
        return bool(self._terms)

    def matches(self, key: str) -> bool:
        if not self._terms:
            return True
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = fuzzy_match(self._terms, key)
        return known

    def keep(self, items: Sequence[Item], key: Callable[[Item], str]) -> list[Item]:
        """The items whose key matches, in their order (everything when there is no query)."""
        if not self:
            return list(items)
        return [item for item in items if self.matches(key(item))]

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
