"""Small pieces of pane text shared by the widgets: key cells, bars, durations."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text

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
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"


def key_width(snapshot: Snapshot, room: int, cap: int = 16) -> int:
    """Cells for a key column: the longest key's length, within [5, cap] and the room left."""
    return max(5, min(cap, longest_key(snapshot.keys), room))


_longest: list[tuple[tuple[KeyRow, ...], int]] = []  # the last snapshot's rows and their answer


def longest_key(rows: tuple[KeyRow, ...]) -> int:
    """The widest key in cells; every pane asks for the same rows, so the last answer is kept
    (with 10,000 keys, measuring them once per frame rather than once per pane)."""
    if _longest and _longest[0][0] is rows:
        return _longest[0][1]
    # An ASCII key is as many cells as characters (isascii is a flag check, no scan).
    width = max((len(r.key) if r.key.isascii() else cell_len(r.key) for r in rows), default=5)
    _longest[:] = [(rows, width)]
    return width


def key_cell(out: Text, key: str, palette: KeyPalette, width: int, bold: bool = False) -> None:
    out.append(fit(key, width), palette.style(key, bold))


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
    return None if row.true_head is None else snapshot.t - (row.true_head - snapshot.score_base)


def wait_so_far(row: KeyRow, snapshot: Snapshot) -> float | None:
    """A key's mean wait counting its oldest queued run as if served now (None: no runs yet).

    A mean over served runs alone gives a key that was never served no wait at all, so it
    looks best; counting the head's age makes a starved key look as bad as it is.
    """
    age = head_age(row, snapshot)
    if age is None:
        return row.mean_wait_ms
    return (row.wait_sum_ms + age) / (row.dequeued + 1)


def starved(row: KeyRow, snapshot: Snapshot) -> bool:
    """Runs queued and none served yet, while the lane has served others."""
    return row.queued > 0 and row.dequeued == 0 and snapshot.dequeued > 0


_oldest: list[tuple[Snapshot, tuple[str, float] | None]] = []  # the last snapshot's answer


def longest_wait(snapshot: Snapshot) -> tuple[str, float] | None:
    """The key whose oldest queued run has waited longest right now, and for how long. The
    status line, the per-key table and the strip all ask, so the last answer is kept."""
    if _oldest and _oldest[0][0] is snapshot:
        return _oldest[0][1]
    ages = [(age, row.key) for row in snapshot.keys if (age := head_age(row, snapshot)) is not None]
    answer = None
    if ages:
        age, key = max(ages)
        answer = key, age
    _oldest[:] = [(snapshot, answer)]
    return answer


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


def ratio(value: float) -> str:
    return f"{value:.2f}"
