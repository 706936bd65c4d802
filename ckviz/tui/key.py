"""One thing the user can do, and how it shows: as a Textual binding, as a command palette's
line and as the help's (the app's table of them: ckviz/tui/bindings.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.binding import Binding

Where = Literal["app", "screen", "single", "compare"]


@dataclass(frozen=True, slots=True)
class Key:
    """One thing the user can do.

    `context` says whose action it is and where it works: `app` (the app's, everywhere),
    `screen` (either mode's screen's own action), `single` or `compare` (that mode's screen
    only). `app` and `screen` keys are bound on the app, in the table's order (the footer's),
    a `screen` one as `screen.<action>` so the screen on show acts; `single` and `compare`
    keys are bound on their screen. `title` puts it in the command palette; `help` is its line
    in the help (empty: the line above covers it too).
    """

    name: str  # the binding's id is `ckviz.<name>`
    keys: str  # Textual's key names, comma separated; "" for a palette-only command
    action: str  # the owner's action, as bound: `step`, `speed(1)`, `focus_pane(2)`
    description: str  # the footer's label
    context: Where
    help: str = ""
    title: str | None = None  # the palette's command (its help line: `help`, cut)
    key_display: str | None = None
    show: bool = True  # the footer may offer it (when its situation does: ckviz.tui.context)
    group: Binding.Group | None = None

    @property
    def bound_action(self) -> str:
        return f"screen.{self.action}" if self.context == "screen" else self.action

    @property
    def binding_id(self) -> str:
        return f"ckviz.{self.name}"

    def binding(self) -> Binding:
        return Binding(
            self.keys,
            self.bound_action,
            self.description,
            show=self.show,
            key_display=self.key_display,
            id=self.binding_id,
            group=self.group,
        )

    @property
    def palette_help(self) -> str:
        """The palette's line under the command: the help's first clause, and the key."""
        line = self.help.split(";")[0].split(" (")[0]
        line = line if len(line) <= 60 else line[:59] + "…"
        return f"{line} ({self.shown_keys.replace('`', '')})" if self.keys else line

    @property
    def shown_keys(self) -> str:
        """`space`, `right` as the help writes them."""
        names = [self.key_display] if self.key_display else []
        names += [k for k in self.keys.split(",") if k and k not in _SPELLED]
        names += [_SPELLED[k] for k in self.keys.split(",") if k in _SPELLED]
        return ", ".join(f"`{n}`" for n in dict.fromkeys(names))


_SPELLED = {
    "greater_than_sign": ">",
    "colon": ":",
    "slash": "/",
    "question_mark": "?",
    "plus": "+",
    "equals_sign": "+",
    "minus": "-",
    "escape": "esc",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "apostrophe": "'",
}
