"""The shared shape of a pane: a bordered, scrollable box re-rendered from each snapshot."""

from __future__ import annotations

from functools import cache
from typing import Generic, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ckviz.disciplines.registry import make_discipline
from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette

MIN_WIDTH = 16
Shown = TypeVar("Shown")


@cache
def rescores(discipline: str) -> bool:
    """Whether the discipline rewrites ckIndex scores before each dequeue (a static trait)."""
    try:
        return make_discipline(discipline).rescores
    except KeyError:
        return True


class Pane(VerticalScroll, Generic[Shown], can_focus=False):
    """Base for the panes: `show()` sets what to draw; subclasses say how, as rich Text."""

    TITLE = ""

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane -compact" if compact else "pane")
        self.compact = compact
        self.body = Static(classes="pane-body")
        self.text = Text()
        self._shown: tuple[Shown, KeyPalette] | None = None
        if self.TITLE and not compact:
            self.border_title = self.TITLE

    def compose(self) -> ComposeResult:
        yield self.body

    def show(self, shown: Shown, palette: KeyPalette) -> None:
        """Draw `shown` (attributes down: the app calls this after each step)."""
        self._shown = (shown, palette)
        self.text = self.render_shown(shown, palette, self.text_width)
        self.body.update(self.text)

    @property
    def text_width(self) -> int:
        width = self.scrollable_content_region.width
        return max(MIN_WIDTH, width) if width else 48

    @property
    def text_height(self) -> int:
        return self.scrollable_content_region.height or 10

    @property
    def plain(self) -> str:
        """The pane's text without styles (what tests read)."""
        return self.text.plain

    def on_resize(self) -> None:
        if self._shown is not None:
            self.show(*self._shown)

    def render_shown(self, shown: Shown, palette: KeyPalette, width: int) -> Text:
        raise NotImplementedError


class SnapshotPane(Pane[Snapshot]):
    """A pane drawn from one lane's snapshot."""


def new_text() -> Text:
    return Text(no_wrap=True, overflow="crop", end="")
