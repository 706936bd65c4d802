"""The shared shape of a pane: a bordered, scrollable box whose rows are drawn on demand.

Only the rows on screen are rendered (Textual's line API), so a pane with 200 keys costs
about as much per step as one with 5; and of those, only the rows whose text changed since the
last step are rendered again (a third of the app's lines, at 10,000 keys, are the same).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.dom import DOMNode
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ckviz.model.snapshot import Snapshot
from ckviz.player.filter import NO_FILTER, KeyFilter
from ckviz.tui.palette import KeyPalette

MIN_WIDTH = 16
Shown = TypeVar("Shown")


def new_text() -> Text:
    return Text(no_wrap=True, overflow="crop", end="")


def no_match(key_filter: KeyFilter) -> Text:
    """The line a filtered pane shows when none of its keys match."""
    return new_text().append(f"  (no key here matches /{key_filter.query})", "dim")


class Rows:
    """A pane's rows: a few ready-made header lines, then `count` drawn only when asked
    (`key_at`: the key each of those names, where a row is one key's)."""

    def __init__(
        self,
        head: Sequence[Text] = (),
        count: int = 0,
        draw: Callable[[int], Text] | None = None,
        tail: Sequence[Text] = (),
        key_at: Callable[[int], str | None] | None = None,
    ) -> None:
        self.head = list(head)
        self.count = count
        self.draw = draw
        self.tail = list(tail)
        self.key_at = key_at

    def __len__(self) -> int:
        return len(self.head) + self.count + len(self.tail)

    def __getitem__(self, index: int) -> Text:
        if index < len(self.head):
            return self.head[index]
        index -= len(self.head)
        if index < self.count:
            assert self.draw is not None
            return self.draw(index)
        return self.tail[index - self.count]


class Pane(ScrollView, Generic[Shown], can_focus=True, inherit_bindings=False):
    """Base for the panes: `show()` sets what to draw; subclasses lay it out as `Rows`.

    Focusable (Tab, or the app's number keys), it scrolls with j/k/g/G and the page keys;
    left and right stay the app's (step back, step), so no horizontal scrolling bindings.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "scroll_up", "Up", show=False, id="pane.up"),
        Binding("down,j", "scroll_down", "Down", show=False, id="pane.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="pane.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="pane.page_down"),
        Binding("home,g", "scroll_home", "Top", show=False, id="pane.top"),
        Binding("end,G", "scroll_end", "Bottom", show=False, id="pane.bottom"),
    ]

    TITLE = ""
    FITS_ROWS = False  # as tall as its rows (CSS height: auto), not a fixed box that scrolls
    COMPACT_FILLS = False  # compact, it takes the height left over (and scrolls) instead

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane -compact" if compact else "pane")
        self._compact = compact
        self.rows = Rows()
        self._shown: tuple[Shown, KeyPalette] | None = None
        self._strips: dict[int, Strip] = {}  # rendered rows, by row index
        self._drawn: dict[int, Text] = {}  # the rows on screen as last shown, by row index
        self._borders: dict[str, object] = {}  # the border's title and subtitle as last set
        self._width = 0
        self._style = Style()
        self.key_filter: KeyFilter = NO_FILTER  # `/`: the keys this pane lists (set by the app)
        if self.TITLE and not compact:
            self.border_title = self.TITLE

    def show(self, shown: Shown, palette: KeyPalette) -> None:
        """Draw `shown` (attributes down: the app calls this after each step)."""
        self._shown = (shown, palette)
        width = self.text_width
        rows = self.rows = self.layout_rows(shown, palette, width)
        style = self.rich_style  # resolved once a show: it walks every ancestor's CSS
        size = Size(width, len(rows))
        same_box = size == self.virtual_size and width == self._width and style == self._style
        top = int(self.scroll_offset.y)
        shown_before, self._drawn = (
            self._drawn,
            {i: rows[i] for i in range(top, min(len(rows), top + self.text_height))},
        )
        if same_box:  # only the rows that changed are rendered again
            strips, self._strips = self._strips, {}
            changed = []
            for i, text in self._drawn.items():
                if i in strips and _same(text, shown_before.get(i)):
                    self._strips[i] = strips[i]
                else:
                    changed.append(i)
            for first, count in _runs(changed):  # a refresh each costs more than a row's render
                self.refresh_lines(first, count)
            return
        self._strips.clear()
        self._style = style
        self._width = width
        if size != self.virtual_size:
            taller = size.height != self.virtual_size.height
            # Assigning virtual_size would lay out the whole screen (tens of ms) every time the
            # row count changes; a box of fixed height only needs its scrollbars updated.
            self.set_reactive(Pane.virtual_size, size)
            self._scroll_update(size)
            if taller and self.fits_rows:
                self.refresh(layout=True)
        self.refresh()

    def set_border_title(self, title: str | Content) -> None:
        """The border's title, set only when it changes: setting it repaints the whole pane."""
        if self._border_changes("title", title):
            self.border_title = title

    def set_border_subtitle(self, subtitle: str | Content) -> None:
        """The border's subtitle, set only when it changes: setting it repaints the whole pane."""
        if self._border_changes("subtitle", subtitle):
            self.border_subtitle = subtitle

    def _border_changes(self, which: str, value: str | Content) -> bool:
        # a Content equals another of the same plain text whatever its styles: compare spans too
        seen = value if isinstance(value, str) else (value.plain, tuple(value.spans))
        changes = self._borders.get(which, self) != seen
        self._borders[which] = seen
        return changes

    @property
    def compact(self) -> bool:
        """Laid out small (compare mode's lanes), unless zoomed: a zoomed pane shows all."""
        return self._compact and not self.has_class("-maximized")

    @property
    def fits_rows(self) -> bool:
        return (self.compact and not self.COMPACT_FILLS) or self.FITS_ROWS

    @property
    def text_width(self) -> int:
        width = self.scrollable_content_region.width
        return max(MIN_WIDTH, width) if width else 48

    @property
    def text_height(self) -> int:
        return self.scrollable_content_region.height or 10

    @property
    def plain(self) -> str:
        """Every row without styles (what tests read)."""
        return "\n".join(self.rows[i].plain for i in range(len(self.rows)))

    def on_resize(self) -> None:
        if self._shown is not None and self.text_width != self._width:
            self.show(*self._shown)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        style = self._style
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width, style)
        strip = self._strips.get(index)
        if strip is None:
            text = self._drawn.get(index) or self.rows[index]
            strip = self._strips[index] = self._strip(text, style)
        return strip.crop_extend(scroll_x, scroll_x + width, style)

    def _strip(self, text: Text, style: Style) -> Strip:
        text.style = style  # the pane's colours under the row's own spans
        return Strip(text.render(self.app.console))

    @abstractmethod
    def layout_rows(self, shown: Shown, palette: KeyPalette, width: int) -> Rows:
        """The rows that draw `shown` at `width` cells (each pane its own)."""


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Ascending row indices as (first, count) runs of consecutive ones."""
    runs: list[tuple[int, int]] = []
    for i in rows:
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((i, 1))
    return runs


def _same(text: Text, before: Text | None) -> bool:
    """Whether a row draws as it did (its style is the pane's, set as it is rendered)."""
    return (
        before is not None
        and text.plain == before.plain
        and text.spans == before.spans
        and (text.justify, text.overflow) == (before.justify, before.overflow)
    )


class SnapshotPane(Pane[Snapshot]):
    """A pane drawn from one lane's snapshot."""


def panes_in(node: DOMNode) -> list[Pane[Any]]:
    """Every pane under `node`, in order (a Pane is abstract: queried by its CSS type name)."""
    return [widget for widget in node.query("Pane") if isinstance(widget, Pane)]


def snapshot_panes_in(node: DOMNode) -> list[SnapshotPane]:
    """Every pane under `node` drawn from one lane's snapshot, in order."""
    return [widget for widget in node.query("SnapshotPane") if isinstance(widget, SnapshotPane)]
