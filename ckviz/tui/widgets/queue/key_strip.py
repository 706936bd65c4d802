"""The key x time strip: one row per key, one cell per time bucket, so a key left waiting
while others are served shows as a long dark run."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from rich.style import Style
from rich.text import Text
from textual.events import MouseDown, MouseEvent, MouseMove, MouseUp
from textual.message import Message

from ckviz.model.history import BUCKETS, KeyBucket, squeeze
from ckviz.model.snapshot import KeyRow, Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import DIM, fit, key_width, lasting, longest_wait, ms
from ckviz.tui.widgets.pane import Rows, SnapshotPane, new_text

SERVED = "█"  # served in the bucket (the key's colour)
WAITING = "░▒▓"  # queued and none served: 1 run, 2-9, 10 or more
IDLE = " "  # nothing queued, or not arrived yet


def merged(a: KeyBucket | None, b: KeyBucket | None) -> KeyBucket | None:
    """Neighbouring buckets in one cell: runs served add up, the deeper queue counts."""
    if a is None or b is None:
        return a or b
    return KeyBucket(a.served + b.served, max(a.depth, b.depth))


def strip_keys(
    snapshot: Snapshot,
    light_key: str | None,
    shown: Sequence[str] | None = None,
    worst_key: str | None = None,
) -> Sequence[str]:
    """The rows: the scenario's light key, the most under-served key (the status line's) and the
    longest-waiting key first, then the rest in scenario order; only `shown` (a filter)."""
    oldest = longest_wait(snapshot)
    candidates = (light_key, worst_key, oldest[0] if oldest else None)
    pinned = [k for k in dict.fromkeys(candidates) if k is not None]
    if shown is not None:  # a filter's keys (every key of the run, maybe): searched in C
        pinned = [k for k in pinned if k in shown]
        return PinnedFirst(shown, pinned) if pinned else shown
    return PinnedFirst(_RowKeys(snapshot.keys), pinned)


class PinnedFirst(Sequence[str]):
    """`keys` with a few pinned on top, looked up only for the rows drawn (a list of 10,000
    keys, or a filter's 100,000, per frame would cost more than the rows on screen)."""

    def __init__(self, keys: Sequence[str], pinned: list[str]) -> None:
        self._keys = keys
        self._pinned = [k for k in pinned if k in keys]
        self._skipped = sorted(map(keys.index, self._pinned))  # their positions in `keys`

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        if index < 0:
            index += len(self)
        if index < len(self._pinned):
            return self._pinned[index]
        position = index - len(self._pinned)
        for skipped in self._skipped:  # the rest, in order, stepping over the pinned
            if skipped <= position:
                position += 1
        return self._keys[position]


class _RowKeys(Sequence[str]):
    """The key names of a snapshot's rows, without a list of them."""

    def __init__(self, rows: Sequence[KeyRow]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self._rows[index].key


class KeyStripPane(SnapshotPane):
    """Per key and time bucket: served (█ in the key's colour), queued and none served
    (░▒▓ by depth, dark), nothing queued (blank). Oldest bucket on the left."""

    TITLE = "Keys over time · █ served · ░▒▓ queued, none served"

    class Scrubbed(Message):
        """A click or a drag on the strip: go to `target`, the time under the pointer."""

        def __init__(self, target: int) -> None:
            super().__init__()
            self.target = target

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(compact=compact, id=id)
        self._axis_at: tuple[int, int, int] | None = None  # (first cell, cells, t) drawn
        self._scrubbed: int | None = None  # the last target a drag asked for
        self._dragged_on: tuple[int, int, int] | None = None  # _axis_at when the drag began
        self.light_key: str | None = None
        self.worst_key: str | None = None  # the fairness headline's worst key, if any
        self.shown_keys: Sequence[str] | None = None  # a filter's keys; None: every key

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        history = snapshot.history
        if history is None:
            self.set_border_subtitle("")
            return Rows([new_text().append("(no time buckets for this run)", DIM)])
        keys = strip_keys(snapshot, self.light_key, self.shown_keys, self.worst_key)
        key_cells = key_width(snapshot, width // 3)
        room = max(1, width - key_cells - 1)
        buckets = history.buckets
        # A young run (its buckets still one unit wide) gets the room of BUCKETS units,
        # filled from the left as it goes: at t=0 one slice stretched across the width.
        span = max(buckets, BUCKETS) if history.width_ms == 1 else buckets
        drawn = max(1, -(-room * buckets // span))  # the columns the run so far covers
        # more buckets than columns: neighbours merge; fewer: each spreads over a few columns
        cells = min(span, room)
        slice_ms = history.width_ms * span / room
        column = lasting(max(1.0, slice_ms), snapshot.time_unit)
        self.set_border_subtitle(f"1 column ≈ {column} · oldest on the left")
        head = [self._axis(snapshot.t, snapshot.time_unit, key_cells, drawn)]
        self._axis_at = (key_cells + 1, drawn, snapshot.t)
        future: list[KeyBucket | None] = [None] * (span - buckets)

        def draw(i: int) -> Text:
            key = keys[i]
            out = new_text()
            out.append(fit(key, key_cells), palette.style(key))
            out.append(" ")
            row = squeeze(history.cells(key) + future, cells, merged)
            spread = [row[c * len(row) // room] for c in range(room)] if len(row) < room else row
            _cells(out, spread, palette.style(key), _waiting_style(palette))
            return out

        return Rows(head, len(keys), draw)

    def on_mouse_down(self, event: MouseDown) -> None:
        self._scrubbed = None
        self._dragged_on = self._dragged_on or self._axis_at
        self._scrub_at(event)

    def on_mouse_move(self, event: MouseMove) -> None:
        if event.button == 1:  # a drag: each new moment under the pointer
            self._dragged_on = self._dragged_on or self._axis_at
            self._scrub_at(event)
        else:
            self._dragged_on = None

    def on_mouse_up(self, _event: MouseUp) -> None:
        self._dragged_on = None

    def _scrub_at(self, event: MouseEvent) -> None:
        """The time under the pointer's column (the first cell: the run's start; the last:
        the moment shown). A drag keeps the axis it started on: each jump redraws the strip
        up to the moment it shows, and read on that axis the pointer's next column meant
        another time (a drag to the right from a fifth of the run went nowhere)."""
        offset = event.get_content_offset(self)
        axis = self._dragged_on or self._axis_at
        if axis is None or offset is None:
            return
        x = offset.x
        first, cells, t = axis
        column = x - first + self.scroll_offset.x
        if not 0 <= column < cells:
            return
        target = round(t * (column + 1) / cells)
        if target != self._scrubbed:
            self._scrubbed = target
            self.post_message(self.Scrubbed(target))

    @staticmethod
    def _axis(t: int, unit: str, key_cells: int, cells: int) -> Text:
        right = f"t={ms(t)}" if unit == "ms" else f"step {t}"
        line = fit("key", key_cells + 1) + "0" + right.rjust(max(len(right) + 1, cells - 1))
        return new_text().append(line, DIM)


def _waiting_style(palette: KeyPalette) -> Style:
    return Style(color=palette.starved.color, dim=True)


def _cells(out: Text, row: Sequence[KeyBucket | None], served: Style, waiting: Style) -> None:
    """The row's cells, a run of alike cells appended at once (a cell each was ~1,300
    appends a step: most of drawing the strip)."""

    def look(cell: KeyBucket | None) -> tuple[str, Style | None]:
        if cell is None or (not cell.served and not cell.depth):
            return IDLE, None
        if cell.served:
            return SERVED, served
        return WAITING[0 if cell.depth == 1 else 1 if cell.depth < 10 else 2], waiting

    for (char, style), run in groupby(map(look, row)):
        out.append(char * sum(1 for _ in run), style)
