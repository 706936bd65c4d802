"""A one-field modal: go to a time, open a scenario file by path."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class Prompt(ModalScreen[str | None]):
    """Asks for one value; enter gives it (stripped), esc gives None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
    ]

    def __init__(
        self, title: str, placeholder: str, hint: str, value: str = "", integer: bool = False
    ) -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.hint = hint
        self.value = value
        self.integer = integer

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = self.title_text
            yield Input(
                self.value,
                placeholder=self.placeholder,
                id="prompt",
                type="integer" if self.integer else "text",
            )
            yield Static(f"{self.hint} · enter goes · esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if value:
            self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
