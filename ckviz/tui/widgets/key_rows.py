"""A pane whose rows are keys (ckIndex, the per-key queues): while it has focus, a row cursor
(`j`/`k`, the arrows, a click) that stays on its key as the rows move, so `enter` can open
that key's own story (ckviz.player.story)."""

from __future__ import annotations

from rich.style import Style
from textual.events import Click
from textual.strip import Strip

from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.widgets.pane import SnapshotPane

CURSOR = Style(reverse=True)
FOLLOW_LIMIT = 1000  # rows searched for the cursor's key when the rows move


class KeyRowsPane(SnapshotPane):
    """A snapshot pane whose body rows are keys (its `Rows.key_at` names them)."""

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(compact=compact, id=id)
        self.cursor: int | None = None  # the body row under the cursor
        self._cursor_key: str | None = None  # the key it follows when the rows move

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor (None: no cursor, or not a key's row)."""
        rows, cursor = self.rows, self.cursor
        if cursor is None or rows.key_at is None or not 0 <= cursor < rows.count:
            return None
        return rows.key_at(cursor)

    def show(self, shown: Snapshot, palette: KeyPalette) -> None:
        super().show(shown, palette)
        self._follow_key()

    def _follow_key(self) -> None:
        """The rows moved (a step, a sort): the cursor goes to its key's new row."""
        key, rows = self._cursor_key, self.rows
        if key is None or rows.key_at is None or self.cursor_key == key:
            return
        for i in range(min(rows.count, FOLLOW_LIMIT)):
            if rows.key_at(i) == key:
                self._place(i)
                return
        self._place(min(self.cursor or 0, rows.count - 1) if rows.count else None)

    # ---- moving the cursor ------------------------------------------------------------------

    def action_scroll_up(self) -> None:
        self.move_cursor(-1)

    def action_scroll_down(self) -> None:
        self.move_cursor(1)

    def action_page_up(self) -> None:
        self.move_cursor(-self.text_height)

    def action_page_down(self) -> None:
        self.move_cursor(self.text_height)

    def action_scroll_home(self) -> None:
        self.move_cursor(-self.rows.count)
        self.scroll_home(animate=False)  # the header lines too

    def action_scroll_end(self) -> None:
        self.move_cursor(self.rows.count)
        self.scroll_end(animate=False)  # the lines below the keys too

    def move_cursor(self, step: int) -> None:
        count = self.rows.count
        if not count:
            return
        current = self.cursor
        self._place(0 if current is None else max(0, min(count - 1, current + step)))
        self._cursor_key = self.cursor_key

    def _place(self, cursor: int | None) -> None:
        before, self.cursor = self.cursor, cursor
        head = len(self.rows.head)
        for row in {before, cursor} - {None}:
            assert row is not None
            self.refresh_lines(head + row, 1)
        if cursor is None:
            return
        line, top, height = head + cursor, int(self.scroll_offset.y), self.text_height
        if line < top:
            self.scroll_to(y=line, animate=False)
        elif line >= top + height:
            self.scroll_to(y=line - height + 1, animate=False)

    def on_focus(self) -> None:
        if self.cursor is None:
            self.move_cursor(0)
        else:
            self.refresh_lines(len(self.rows.head) + self.cursor, 1)

    def on_blur(self) -> None:
        if self.cursor is not None:
            self.refresh_lines(len(self.rows.head) + self.cursor, 1)

    def on_click(self, event: Click) -> None:
        """A click on a key's row puts the cursor there (and focus here)."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        line = offset.y + int(self.scroll_offset.y)
        body = line - len(self.rows.head)
        if 0 <= body < self.rows.count:
            self.focus()
            self._place(body)
            self._cursor_key = self.cursor_key
        else:
            self.clicked_head(line, offset.x)

    def clicked_head(self, line: int, x: int) -> None:
        """A click above or below the keys' rows (the per-key table sorts by its header)."""

    # ---- drawing ----------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        cursor = self.cursor
        if cursor is None or not self.has_focus:
            return strip
        if y + int(self.scroll_offset.y) == len(self.rows.head) + cursor:
            return strip.apply_style(CURSOR)
        return strip
