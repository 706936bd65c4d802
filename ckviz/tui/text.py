"""Small pieces of pane text shared by the widgets: key cells, bars, durations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text

from ckviz.model.names import shown_name
from ckviz.model.queue import shown_number
from ckviz.model.snapshot import KeyRow, Snapshot
from ckviz.tui.palette import KeyPalette

BAR = "█"
EIGHTHS = " ▏▎▍▌▋▊▉"
DIM = Style(dim=True)
BOLD = Style(bold=True)


def fit(text: str, width: int) -> str:
    """`text` cut or padded to exactly `width` cells (an ellipsis marks a cut). Cells, not
    characters: a CJK character or an emoji takes two, so a key like `日本` keeps columns."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def number(value: str | float) -> str:
    """A state value as a pane shows it: numbers without a needless fraction."""
    return shown_number(value)


def key_width(snapshot: Snapshot, room: int, cap: int = 16) -> int:
    """Cells for a key column: the longest key's length (of every key of the run, so columns
    stay put whichever keys are shown), within [5, cap] and the room left."""
    names = snapshot.every_key.key_names
    return max(5, min(cap, longest_key(names), room))


_longest: list[tuple[tuple[str, ...], int]] = []  # the last run's key names and their answer


def longest_key(names: tuple[str, ...]) -> int:
    """The widest key in cells; every snapshot of a run shares one tuple of names, so the
    last answer is kept (with 10,000 keys, measured once a run, not once per pane)."""
    if _longest and _longest[0][0] is names:
        return _longest[0][1]
    # An ASCII key is as many cells as characters (isascii is a flag check, no scan).
    width = max((len(k) if k.isascii() else cell_len(k) for k in names), default=5)
    _longest[:] = [(names, width)]
    return width


def key_cell(out: Text, key: str, palette: KeyPalette, width: int, bold: bool = False) -> None:
    out.append(fit(shown_name(key), width), palette.style(key, bold))  # no invisible char


def bar(out: Text, value: float, maximum: float, width: int, style: Style) -> None:
    """A horizontal bar of `width` cells, filled in eighths; padded with spaces."""
    if width <= 0:
        return
    eighths = 0 if maximum <= 0 else round(min(1.0, value / maximum) * width * 8)
    if value > 0 and eighths == 0:
        eighths = 1  # something queued always shows
    full, part = divmod(eighths, 8)
    filled = BAR * full + (EIGHTHS[part] if part else "")
    out.append(filled, style)
    out.append(" " * (width - len(filled)))


def head_age(row: KeyRow, snapshot: Snapshot) -> float | None:
    """How long the key's oldest queued run has waited at this moment (None: nothing queued)."""
    return row.head_age(snapshot.t, snapshot.score_base)


def wait_so_far(row: KeyRow, snapshot: Snapshot) -> float | None:
    """A key's mean wait counting its oldest queued run as if served now (KeyRow's)."""
    return row.wait_so_far(snapshot.t, snapshot.score_base)


STARVED = "✖"  # a key owed 3 or more dequeues that got none (fairness.STARVED_MEANS)


def longest_wait(snapshot: Snapshot) -> tuple[str, float] | None:
    """The key whose oldest queued run has waited longest right now (of every key, not only
    the rows carried), and for how long."""
    return snapshot.every_key.longest_wait


def ms(value: float | None, unit: str = "ms") -> str:
    """A duration in logical milliseconds, short: '-', '840ms', '12.3s'; in steps (a step
    scenario's clock) a bare count, its pane saying the unit."""
    if value is None:
        return "-"
    if unit != "ms":
        return f"{value:.0f}"
    if abs(value) >= 10_000:
        return f"{value / 1000:.1f}s"
    return f"{value:.0f}ms"


def lasting(value: float, unit: str = "ms") -> str:
    """A duration with its unit where no pane says it: '840ms', '12.3s'; '1 step', '9 steps'."""
    if unit == "ms":
        return ms(value)
    return f"{value:.0f} step{'' if round(value) == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a one-line status: the lower `priority`, the longer it stays; `short`, a
    shorter way to say it, used from level `shorten` on (its priority if not given)."""

    priority: int
    text: Text
    short: Text | None = None
    shorten: int | None = None


def fitted(parts: Sequence[Part], width: int | None) -> Text:
    """`parts` in order within `width` cells: from the least telling level down, parts are
    shortened, then dropped; what still does not fit ends at a word, with '…'."""
    chosen = [part.text for part in parts]
    levels = {p.priority for p in parts} | {p.shorten for p in parts if p.shorten is not None}
    for level in sorted(levels - {0}, reverse=True):
        if width is None or sum(cell_len(t.plain) for t in chosen) <= width:
            break
        for i, part in enumerate(parts):
            if part.short is not None and (part.shorten or part.priority) == level:
                chosen[i] = part.short
        if sum(cell_len(t.plain) for t in chosen) > width:
            for i, part in enumerate(parts):
                if part.priority == level:
                    chosen[i] = Text()
    line = Text(end="").join(chosen)
    return line if width is None else at_a_word(line, width)


def at_a_word(line: Text, width: int) -> Text:
    """`line` cut after its last whole word within `width` cells, with '…' (never mid-word)."""
    if cell_len(line.plain) <= width:
        return line
    room = max(0, width - 1)  # a cell for the '…'
    while room and cell_len(line.plain[:room]) > width - 1:
        room -= 1
    cut = line.plain.rfind(" ", 0, room + 1)
    out = line[: cut if cut > 0 else room]
    out.rstrip()
    return out.append("…", DIM)


def ratio(value: float) -> str:
    return f"{value:.2f}"
