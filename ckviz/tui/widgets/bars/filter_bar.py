"""The `/` line above the footer: the key filter being typed, or the one in force (as in k9s
and lazygit, the panes follow each keystroke)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

HINT = "enter keeps · esc clears"


class FilterBar(Horizontal):
    """`/query  n of m keys · enter keeps · esc clears`; hidden while no filter is in force."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear filter", id="filter.clear"),
    ]

    class Changed(Message):
        """The query changed (each keystroke): the app filters every pane by it."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Closed(Message):
        """Typing ended (enter or esc): focus goes back where it was."""

    def compose(self) -> ComposeResult:
        yield Static("/", id="filter-prompt")
        field = Input(id="filter-input", compact=True, placeholder="key name, fuzzy (lt1: light-1)")
        field.can_focus = False  # only while typing: Tab never lands in a closed filter
        yield field
        yield Static(id="filter-count")

    @property
    def field(self) -> Input:
        return self.query_one(Input)

    @property
    def editing(self) -> bool:
        return self.field.has_focus

    def open(self, query: str) -> None:
        """Show the bar and take the keys, the query in force ready to edit."""
        self.display = True
        field = self.field
        field.can_focus = True
        if field.value != query:
            with field.prevent(Input.Changed):
                field.value = query
        field.focus()
        field.cursor_position = len(query)

    def show_query(self, query: str, count: str) -> None:
        """Reflect the filter in force (set elsewhere, e.g. on the other mode's screen)."""
        field = self.field
        if field.value != query:
            with field.prevent(Input.Changed):
                field.value = query
        self.query_one("#filter-count", Static).update(f"{count} · {HINT}" if count else HINT)
        self.display = bool(query) or self.editing

    def action_clear(self) -> None:
        self.field.value = ""  # posts Changed("")
        self._close()

    @on(Input.Changed, "#filter-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    @on(Input.Submitted, "#filter-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._close()

    def _close(self) -> None:
        self.field.can_focus = False
        self.display = bool(self.field.value.strip())
        self.post_message(self.Closed())
