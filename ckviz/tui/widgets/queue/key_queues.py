"""The per-key queues pane: queue depth as a bar, runs to arrive, dequeued, head age, the
wait so far (the served runs' and the oldest queued run's) and share/weight over time."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.message import Message

from ckviz.model.names import natural_key
from ckviz.model.snapshot import SORTS, KeyLifeRow, KeyRow, LifeView, Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.sparkline import sparkline
from ckviz.tui.text import (
    DIM,
    bar,
    fit,
    head_age,
    key_cell,
    key_width,
    ms,
    wait_so_far,
)
from ckviz.tui.widgets.key_rows import KeyRowsPane
from ckviz.tui.widgets.pane import Rows, new_text, no_match

MIN_BAR = 6  # below this many cells for the bar, the arrive column makes room
SPARK = 12  # the share/weight sparkline's cells (the first column to go, after arrive)
MIN_SPARK = 6


def sort_value(row: KeyRow, snapshot: Snapshot, by: str) -> float:
    """What `by` sorts on, largest first (a key with nothing queued has no age: -1)."""
    if by == "queued":
        return row.queued
    if by == "out":
        return row.dequeued
    value = head_age(row, snapshot) if by == "age" else wait_so_far(row, snapshot)
    return -1.0 if value is None else value


COLUMNS = (("queued", 7), ("arrive", 7), ("out", 5), ("age", 7), ("wait", 7))
# with the run lifecycle: runs waiting for their retry time (and when the first comes due),
# runs expired and runs dead-lettered
LIFE_COLUMNS = (("retry", 11), ("expired", 8), ("dead", 5))
GIVE_WAY = ("arrive", "bar", "out", "age")  # least telling first: the queued number stays


def columns(
    room: int, with_arrive: bool = True, with_life: bool = False
) -> tuple[list[tuple[str, int]], int]:
    """The number columns that fit `room` cells beside a bar of at least MIN_BAR (its width
    returned; 0: no bar), dropping GIVE_WAY's columns in turn rather than squeezing them."""
    numbers = [c for c in COLUMNS if with_arrive or c[0] != "arrive"]
    numbers += LIFE_COLUMNS if with_life else ()
    bar_shown = True
    for going in GIVE_WAY:
        spare = room - sum(w for _, w in numbers)
        if spare >= (MIN_BAR if bar_shown else 0):
            break
        if going == "bar":
            bar_shown = False
        else:
            numbers = [c for c in numbers if c[0] != going]
    spare = room - sum(w for _, w in numbers)
    return numbers, (max(MIN_BAR, spare) if bar_shown else 0)


class KeyQueuesPane(KeyRowsPane):
    """One row per key: the scenario's light key and the longest-waiting key pinned on top,
    then the scenario's order or the chosen sort (largest first)."""

    TITLE = "Per-key queues"

    class SortPicked(Message):
        """A click on a column's header: sort the table by it."""

        def __init__(self, sort: str) -> None:
            super().__init__()
            self.sort = sort

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(compact=compact, id=id)
        self.sort_by = SORTS[0]
        self.light_key: str | None = None
        self._header: tuple[int, list[tuple[int, int, str]]] = (-1, [])  # line, column spans

    def clicked_head(self, line: int, x: int) -> None:
        header, spans = self._header
        if line != header:
            return
        for start, end, sort in spans:
            if start <= x < end:
                self.post_message(self.SortPicked(sort))
                return

    def ordered(self, snapshot: Snapshot) -> list[KeyRow]:
        """Pinned rows first (light key, longest head age), then the rest in the chosen order;
        with a `/` filter, only matching rows (a pinned key that does not match is not shown).
        The driver already sent the rows so (the app's view asks for this pane's order and
        filter); a frame recorded under another order is re-sorted here, among its rows."""
        rows = self.key_filter.keep_rows(snapshot.keys)
        oldest = snapshot.every_key.longest_wait  # the status line names the same key
        pinned = [r for r in rows if r.key == self.light_key]
        if (
            oldest is not None
            and oldest[0] != self.light_key
            and self.key_filter.matches(oldest[0])
        ):
            pinned += [r for r in rows if r.key == oldest[0]]
        keys = {r.key for r in pinned}
        rest = [r for r in rows if r.key not in keys] if pinned else rows
        if self.sort_by != SORTS[0]:
            rest.sort(key=lambda r: (-sort_value(r, snapshot, self.sort_by), natural_key(r.key)))
        return pinned + rest

    def layout_rows(self, snapshot: Snapshot, palette: KeyPalette, width: int) -> Rows:
        rows = (
            self.ordered(snapshot) if not self.compact else self.key_filter.keep_rows(snapshot.keys)
        )
        figures = snapshot.every_key
        if not self.compact:
            matched = figures.matched  # the view carries the first rows of these
            shown = "" if len(rows) >= matched else f"{len(rows)} of {matched} keys · "
            subtitle = f"{shown}sorted by {self.sort_by} (o) · light key, longest age first"
            if snapshot.time_unit != "ms":
                subtitle = f"age, wait in {snapshot.time_unit}s · {subtitle}"
            if self.key_filter:
                # typed by the user: plain content, never markup (`[/` would not parse)
                query = self.key_filter.query
                self.set_border_subtitle(Content(f"/{query} · {subtitle}"))
            else:
                self.set_border_subtitle(subtitle)
        keys = key_width(snapshot, width // 3)
        room = width - keys - 1  # for the bar, the numbers and the sparkline
        life = snapshot.life
        base = sum(w for label, w in COLUMNS if label != "arrive")
        base += sum(w for _, w in LIFE_COLUMNS) if life is not None else 0
        history = None if self.compact else snapshot.history
        # the sparkline narrows to make room for the bar, and goes below MIN_SPARK cells
        cells = 0 if history is None else min(SPARK, room - base - MIN_BAR - 1)
        if cells < MIN_SPARK:
            history, cells = None, 0
        spark = cells + 1 if cells else 0
        numbers, bar_width = columns(room - spark, not self.compact, life is not None)
        head = [] if life is None or self.compact else ttl_line(life, snapshot.time_unit)
        header = new_text().append(fit("key", keys + 1) + fit("queue", bar_width), DIM)
        spans = [(0, keys + 1, SORTS[0]), (keys + 1, keys + 1 + bar_width, "queued")]
        for label, w in numbers:
            if label in SORTS:  # a click on the header sorts by the column
                spans.append((header.cell_len, header.cell_len + w, label))
            header.append(label.rjust(w), DIM)
        self._header = (len(head), spans)
        if history is not None:
            header.append(" " + fit("share/weight", cells), DIM)
        deepest = figures.deepest  # of every key: the bars keep their scale whatever is shown

        def draw(i: int) -> Text:
            row = rows[i]
            out = new_text()
            key_cell(out, row.key, palette, keys)
            out.append(" ")
            if bar_width:
                bar(out, row.queued, deepest, bar_width - 1, palette.style(row.key))
                out.append(" ")  # the bar never runs into the first number
            values = {
                "queued": str(row.queued),
                "arrive": str(row.to_arrive),
                "out": str(row.dequeued),
                "age": ms(head_age(row, snapshot), snapshot.time_unit),
                "wait": ms(wait_so_far(row, snapshot), snapshot.time_unit),
            }
            if life is not None:
                values.update(life_values(life.keys.get(row.key), snapshot.time_unit))
            for label, w in numbers:
                out.append(values[label].rjust(w))
            if history is not None:  # the key's share/weight bucket by bucket, 1.0 full height
                out.append(" ")
                sparkline(out, history.shares(row.key), cells, palette)
            return out

        tail = [no_match(self.key_filter)] if self.key_filter and not rows else []
        return Rows([*head, header], len(rows), draw, tail, key_at=lambda i: rows[i].key)


def life_values(life: KeyLifeRow | None, unit: str) -> dict[str, str]:
    """A key's lifecycle cells: '2 @840ms' (two runs wait for their retry, the first due at
    840 ms), then its expired and dead-lettered counts."""
    if life is None:
        return {"retry": "-", "expired": "-", "dead": "-"}
    due = "" if life.next_due is None else f" @{ms(life.next_due, unit)}"
    return {
        "retry": f"{life.waiting}{due}",
        "expired": str(life.expired),
        "dead": str(life.dead_lettered),
    }


def ttl_line(life: LifeView, unit: str) -> list[Text]:
    """The TTL queue's line: runs pending, the next expiries and the next sweep (none when
    no run has a TTL)."""
    if not life.ttl_pending and not life.next_expiries:
        return []
    out = new_text().append("TTL ", DIM).append(f"{life.ttl_pending} pending")
    if life.next_expiries:
        soonest = ", ".join(f"{key} @{ms(at, unit)}" for key, _, at in life.next_expiries)
        out.append(" · next ", DIM).append(soonest)
    if life.next_sweep is not None:
        out.append(" · sweep ", DIM).append(f"@{ms(life.next_sweep, unit)}")
    return [out]
