"""Modal pickers for the discipline, the scenario and the seed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option


class Picker(ModalScreen[str | None]):
    """A list of choices (the current one highlighted); optionally a field for any value."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "focus_choices", "Choices", show=False, id="picker.choices"),
    ]

    def __init__(
        self,
        title: str,
        choices: Sequence[str],
        current: str,
        custom: str | None = None,
        descriptions: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.descriptions = dict(descriptions or {})  # shown dim under each choice
        self.title_text = title
        self.choices = list(choices)
        self.current = current
        self.custom = custom  # placeholder of a free-text field, if any value may be typed

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = self.title_text
            if self.custom is not None:
                yield Input(placeholder=self.custom, id="custom")
            options = [Option(self._prompt(choice), id=choice) for choice in self.choices]
            yield OptionList(*options, id="choices")
            hint = "type one + enter, or ↓ to the list · " if self.custom is not None else ""
            yield Static(hint + "enter picks · esc cancels", classes="hint")

    def _prompt(self, choice: str) -> Text:
        prompt = Text(choice)
        if description := self.descriptions.get(choice):
            prompt.append("\n" + description, "dim")
        return prompt

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        if self.current in self.choices:
            choices.highlighted = self.choices.index(self.current)
        if self.custom is not None:
            self.query_one(Input).focus()
        else:
            choices.focus()

    def action_focus_choices(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if value:
            self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
