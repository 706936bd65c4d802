"""The help modal: the bundled help.md, rendered."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ckviz.tui.bindings import help_lines

HELP_FILE = Path(__file__).resolve().parent.parent / "help.md"
KEYS_HERE = "<!-- the list of keys: made from ckviz/tui/bindings.py when the help opens -->"


def help_text() -> str:
    """help.md with the keys listed from the bindings table (so the help cannot drift)."""
    text = HELP_FILE.read_text(encoding="utf-8")
    return text.replace(KEYS_HERE, "\n".join(help_lines()))


class HelpScreen(ModalScreen[None]):
    """Every control and what each pane shows."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "ckviz help · esc closes"
            yield Markdown(help_text())

    def action_close(self) -> None:
        self.dismiss(None)
