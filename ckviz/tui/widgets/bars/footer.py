"""The footer: Textual's, cut to the keys that matter in the app's situation (ckviz.tui.context)
and to the width, relabelled where a key's meaning changes (`p` Play / Pause)."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from ckviz.tui.context import Offer, Situated, fitting, footer_offers

PALETTE_CELLS = 12  # `^p palette`, docked at the right


class ContextFooter(Footer):
    """Only the offered keys, best first until the line is full; `?` and `q` always."""

    def __init__(self, *, compact: bool = False, show_command_palette: bool = True) -> None:
        super().__init__(compact=compact, show_command_palette=show_command_palette)
        self._width: int | None = None  # the width the keys were last chosen for

    def compose(self) -> ComposeResult:
        screen = self.screen
        if not isinstance(screen, Situated):  # not one of ckviz's screens: Textual's footer
            yield from super().compose()
            return
        offers = footer_offers(screen.context())
        chosen = self._chosen(offers)
        # Textual's own compose (its key groups nest with `with`, so widgets pass one by one)
        for widget in super().compose():
            if isinstance(widget, FooterKey) and _droppable(widget):
                action = _table_action(widget.action)
                if action not in chosen:
                    continue
                if (label := offers[action].label) is not None:
                    widget.description = label
            yield widget

    def on_resize(self) -> None:
        if self.size.width != self._width:  # more or fewer keys fit
            self._width = self.size.width
            self.call_after_refresh(self.recompose)

    def _chosen(self, offers: dict[str, Offer]) -> set[str]:
        """The offered actions that fit the width beside the groups and the palette key."""
        room = (self.app.size.width or 80) - PALETTE_CELLS
        offered: dict[str, int] = {}
        grouped: set[str] = set()
        for _, binding, _, _ in self.screen.active_bindings.values():
            if not binding.show:
                continue
            if binding.group is not None:  # `+-` then `Speed`: each key a cell or two, once
                if not grouped & {binding.action}:
                    first = not any(a.startswith("group:") for a in grouped)
                    room -= cell_len(self.app.get_key_display(binding))
                    room -= cell_len(binding.group.description) + 2 if first else 0
                    grouped |= {binding.action, "group:"}
                continue
            action = _table_action(binding.action)
            if action in offers and action not in offered:
                label = offers[action].label or binding.description
                offered[action] = cell_len(self.app.get_key_display(binding)) + 2 + cell_len(label)
        return fitting(list(offered.items()), offers, room)


def _table_action(bound: str) -> str:
    """The action as the bindings table names it (a screen's is bound as `screen.<action>`)."""
    return bound.removeprefix("screen.")


def _droppable(widget: FooterKey) -> bool:
    """A key of its own (not one of a group's, not the palette's): the footer may drop it."""
    return not (widget.has_class("-grouped") or widget.has_class("-command-palette"))
