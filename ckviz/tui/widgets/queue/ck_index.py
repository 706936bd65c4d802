"""The ckIndex pane: every member in Redis order, its score, true head or rescored, the scan
window and the entry the next dequeue picks; for a discipline that rescores, its own order
beside Redis's, the pick on top, so the reordering shows."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from ckviz.disciplines.registry import REGISTRY
from ckviz.model.queue import IndexEntry
from ckviz.model.snapshot import Snapshot
from ckviz.player.filter import NO_FILTER, KeyFilter
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit, key_cell, key_width
from ckviz.tui.widgets.key_rows import KeyRowsPane
from ckviz.tui.widgets.pane import Rows, new_text, no_match

GUTTER = " │ "
SIDE_MIN = 17  # cells each side needs for Redis's order and the discipline's side by side

# what ckIndex is to a step scenario's discipline: its own note, else the base dequeue's scan
STEP_NOTE = "the base dequeue scans it, lowest score first"


class CkIndexPane(KeyRowsPane):
    """ckIndex as the last read returned it, lowest score first; for a discipline that
    rescores, its own order for the next dequeue beside it."""

    TITLE = "ckIndex · Redis's order"
    COMPACT_FILLS = True

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        index = snapshot.index_read
        window = snapshot.scan_window
        rescoring = snapshot.rescores
        # The next dequeue scans ckIndex in `next_order` (after a rescore, for disciplines that
        # rescore): its window is that order's first `window` keys, its pick the first one.
        # A step scenario's snapshot has the base queue's ckIndex but no heads and no scan of
        # its own to preview (a discipline in Redis may pick by its own state first): the
        # entries only, and why.
        steps = snapshot.time_unit != "ms"
        upcoming = () if steps else snapshot.next_order
        scanned = set(upcoming[:window])
        pick = upcoming[0] if upcoming and window else None
        rows = snapshot.rows  # the driver carries the rows of the entries it carries
        heads = {key: row.true_head for key, row in rows.items()}
        lowest = min((entry.score for entry in index), default=0.0)
        size = max(snapshot.every_key.index_size, len(index))
        noun = "entry" if size == 1 else "entries"
        summary = f"{size} {noun} · scan window {window}"
        if steps:
            listed = REGISTRY.get(snapshot.discipline)
            summary = f"{size} {noun} · {(listed and listed.index_note) or STEP_NOTE}"
        elif window == 0:
            summary += f" ({snapshot.full or 'nothing to take'})"
        elif pick is not None:
            summary += " · ▶ next pick" + (" (after rescore)" if rescoring else "")
        # `/`: only matching entries, each keeping its rank in Redis's order
        shown = (
            [i for i, e in enumerate(index) if self.key_filter.matches(e.key)]
            if self.key_filter
            else None
        )
        if shown is not None:
            summary = f"{len(shown)} of {summary}"
        if self.compact:
            summary = "ckIndex · " + summary
        head = [new_text().append(fit(summary, width), DIM)]
        tail: list[Text] = []
        if size > len(index):
            tail.append(new_text().append(f"  … {size - len(index)} more", DIM))
        if not index:
            tail.append(new_text().append("  (empty: nothing queued)", DIM))
        elif shown == []:
            tail.append(no_match(self.key_filter))
        if rescoring and not self.compact:
            tail += self._rescore_note(snapshot, palette, width)
        half = (width - len(GUTTER)) // 2
        side = rescoring and bool(index) and half >= SIDE_MIN
        if not self.compact:
            self.set_border_title(f"{self.TITLE} · {snapshot.discipline}'s" if side else self.TITLE)
        if side:
            return side_by_side(snapshot, palette, half, head, tail, heads, self.key_filter)
        keys = key_width(snapshot, width - 17)

        def draw(row: int) -> Text:
            out = new_text()
            i = row if shown is None else shown[row]
            entry = index[i]
            in_window = entry.key in scanned
            picked = entry.key == pick
            if picked:
                out.append("▶ ", BOLD)
            else:
                out.append("│ " if in_window else "  ", DIM)
            style = None if in_window else DIM
            out.append(f"{i + 1:>3} ", style)
            key_cell(out, entry.key, palette, keys, bold=picked)
            if steps:
                out.append(" " * 13)
            elif heads.get(entry.key) == entry.score:
                out.append(fit(f" head t={entry.score - snapshot.score_base:.0f}", 13), style)
            else:
                out.append(fit(" rescored", 13), BOLD if in_window else DIM)
            # The score above the lowest one (13-digit raw scores say nothing); cut first.
            return out.append(f"+{entry.score - lowest:.0f}", DIM)

        def key_at(row: int) -> str:
            return index[row if shown is None else shown[row]].key

        return Rows(head, len(index) if shown is None else len(shown), draw, tail, key_at)

    @staticmethod
    def _rescore_note(snapshot: Snapshot, palette: KeyPalette, width: int) -> list[Text]:
        lines = [
            new_text().append(
                fit(f"{snapshot.discipline} rescores all before it dequeues;", width), DIM
            )
        ]
        note = new_text()
        if snapshot.index_rescored:
            note.append("last rescore: ", DIM)
            for n, entry in enumerate(snapshot.index_rescored[:8]):
                note.append(" < " if n else "", DIM)
                note.append(entry.key, palette.style(entry.key))
        else:
            note.append("it picks the key it ranks first (see Discipline)", DIM)
        lines.append(note)
        return lines


def side_by_side(
    snapshot: Snapshot,
    palette: KeyPalette,
    half: int,
    head: list[Text],
    tail: list[Text],
    heads: dict[str, float | None],
    key_filter: KeyFilter = NO_FILTER,
) -> Rows:
    """Left, ckIndex in Redis's order as read (its scores: a true head or rescored); right,
    the order the discipline ranks the same keys in for the next dequeue, its pick on top
    (`▶`), with how far each key moved from its place in Redis's order (`↑3`)."""
    index = snapshot.index_read
    upcoming = snapshot.next_order
    window = snapshot.scan_window
    pick = upcoming[0] if upcoming and window else None
    scanned = set(upcoming[:window])
    redis_rank = {entry.key: n for n, entry in enumerate(index)}
    lowest = min(entry.score for entry in index)
    ranks = len(str(max(len(index), len(upcoming))))
    keys = key_width(snapshot, half - 6 - ranks)  # at least 3 cells left for score or move
    rest = half - 3 - ranks - keys
    header = new_text().append(fit("Redis's order (as read)", half), DIM).append(GUTTER, DIM)
    head = [*head, header.append(fit(f"{snapshot.discipline}'s order", half), BOLD)]

    def mark(out: Text, key: str, rank: int) -> None:
        if key == pick:
            out.append("▶ ", BOLD)
        else:
            out.append("│ " if key in scanned else "  ", DIM)
        out.append(f"{rank + 1:>{ranks}} ", None if key in scanned else DIM)
        key_cell(out, key, palette, keys, bold=key == pick)

    def redis_side(out: Text, entry: IndexEntry, rank: int) -> None:
        mark(out, entry.key, rank)
        rescored = heads.get(entry.key) != entry.score
        score = f"+{short(entry.score - lowest)}"
        if rest >= 10:
            tag = f" {'resc' if rescored else 'head'} {score}"
        else:  # narrow: a star marks a rescored score
            tag = f" {score}{'*' if rescored else ''}"
        out.append(fit(tag, rest), DIM)

    def discipline_side(out: Text, key: str, rank: int) -> None:
        mark(out, key, rank)
        moved = redis_rank.get(key, rank) - rank
        arrow = f" ↑{moved}" if moved > 0 else f" ↓{-moved}" if moved < 0 else " ="
        out.append(fit(arrow, rest), DIM if moved <= 0 else BOLD)

    # `/`: each side lists its matching keys, each keeping its rank on that side
    left: Sequence[int] = range(len(index))
    right: Sequence[int] = range(len(upcoming))
    if key_filter:
        left = [i for i, entry in enumerate(index) if key_filter.matches(entry.key)]
        right = [i for i, key in enumerate(upcoming) if key_filter.matches(key)]

    def key_at(row: int) -> str | None:  # Redis's side, else the discipline's
        if row < len(left):
            return index[left[row]].key
        return upcoming[right[row]] if row < len(right) else None

    def draw(row: int) -> Text:
        out = new_text()
        if row < len(left):
            redis_side(out, index[left[row]], left[row])
        else:
            out.append(" " * half)
        out.append(GUTTER, DIM)
        if row < len(right):
            discipline_side(out, upcoming[right[row]], right[row])
        return out

    return Rows(head, max(len(left), len(right)), draw, tail, key_at)


def short(value: float) -> str:
    """A score difference in at most 4 characters: 840, 12k, 3M."""
    for limit, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= limit * 0.9995:  # what would round to 1 of this unit
            return f"{value / limit:.0f}{unit}"
    return f"{value:.0f}"
