"""What the panes view: the per-key table's sort and the `/` filter, as asked of the lanes.

Textual-free (the player holds one; lint-imports keeps Textual out).
"""

from __future__ import annotations

from dataclasses import dataclass

from ckviz.model.snapshot import SORTS, ViewRequest
from ckviz.player.filter import NO_FILTER, KeyFilter
from ckviz.player.frames import Origin

VIEW_ROWS = 100  # per-key rows (and ckIndex entries) a frame carries: more than a screen shows


@dataclass(slots=True)
class Viewing:
    """What the panes view: the per-key table's sort and the `/` filter (both asked of the
    lanes: a frame carries a screenful of rows, not every key)."""

    sort_by: str = SORTS[0]
    key_filter: KeyFilter = NO_FILTER
    only_keys: tuple[str, ...] | None = None  # the keys the filter lets through

    def request(self, setup: Origin) -> ViewRequest:
        """The per-key table's sort with the light key and the longest-waiting key pinned
        (single mode), or the scenario's order in every lane (compare: its lanes' rows line
        up), within the filter; VIEW_ROWS of them."""
        if setup.compare:
            return ViewRequest(
                limit=VIEW_ROWS, only=self.only_keys, index_limit=VIEW_ROWS, waits=True
            )
        light = setup.light_key
        return ViewRequest(
            sort=self.sort_by,
            limit=VIEW_ROWS,
            pinned=(light,) if light else (),
            pin_longest_wait=True,
            only=self.only_keys,
            index_limit=VIEW_ROWS,
        )
