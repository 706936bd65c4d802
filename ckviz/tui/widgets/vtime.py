"""The vtime section of the discipline pane: the state the Lua keeps, and the last call's passes.

Everything here is read back from Redis (the state read that ends a trip, and the trace the
dequeue returns when the app asks for it); the pane never computes a tag itself.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ckviz.disciplines.vtime.values import Visit, VtimeView
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, number
from ckviz.tui.widgets.pane import new_text

# what a candidate's fate reads as, in the reference's words
FATES = {
    "served": "served",
    "limit": "at its limit",
    "not-ready": "head not ready",
    "outside-window": "outside the window",
    "batch-full": "batch full",
    "empty": "empty",
    "expired": "expired",
    "orphan": "orphan dropped",
    "discovered": "registered",
}
SERVED = Style(bold=True)


def vtime_lines(view: VtimeView, palette: KeyPalette) -> list[Text]:
    """The floor, the tags in pass-1 order, the idle set, then the last call pass by pass."""
    state = view.state
    floor = (state.floor or 0.0) if state is not None else 0.0
    head = new_text().append("vtime ", BOLD).append(view.version, BOLD)
    head.append(" · floor ", DIM).append(number(floor))
    if view.call_floor is not None:
        head.append(" · last call's floor ", DIM).append(number(view.call_floor))
    lines = [head, _tags(state.tags if state else {}, palette, "tags (pass 1 order)")]
    if view.version == "head":
        lines.append(_tags(state.idle if state else {}, palette, "idle (parked)"))
    lines += _passes(view, palette)
    return lines


def _tags(tags: dict[str, float], palette: KeyPalette, label: str) -> Text:
    out = new_text().append(f"{label}: ", DIM)
    if not tags:
        return out.append("none", DIM)
    for n, (key, tag) in enumerate(tags.items()):
        out.append("  " if n else "")
        out.append(key, palette.style(key)).append(f" {number(tag)}")
    return out


def _passes(view: VtimeView, palette: KeyPalette) -> list[Text]:
    if not view.traced:
        return [new_text().append("last call: (no trace asked for)", DIM)]
    if not view.calls:
        return [new_text().append("last call: none yet", DIM)]
    lines = [new_text().append(f"last call (#{view.calls}), what each pass looked at:", DIM)]
    for passno in (1, 2):  # one candidate a line, in the order the pass looked at them
        visits = [v for v in view.visits if v.passno == passno]
        label = f" pass {passno}: "
        if not visits:
            lines.append(new_text().append(label, DIM).append("nothing", DIM))
        for n, visit in enumerate(visits):
            out = new_text().append(label if n == 0 else " " * len(label), DIM)
            _visit(out, visit, palette)
            lines.append(out)
    return lines


def _visit(out: Text, visit: Visit, palette: KeyPalette) -> None:
    served = visit.fate == "served"
    out.append(visit.key, palette.style(visit.key) + SERVED if served else palette.style(visit.key))
    out.append(f" {FATES.get(visit.fate, visit.fate)}", Style() if served else DIM)
    if visit.tag is not None:
        out.append(f" -> {number(visit.tag)}")
    if visit.drain:
        out.append(f", {visit.drain}", DIM)
