"""Sparklines: a series of figures as one row of eighth-height blocks, for a table cell or the
status line."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from ckviz.model.history import squeeze
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import DIM

SPARKS = "▁▂▃▄▅▆▇█"


def last_known(a: float | None, b: float | None) -> float | None:
    """Neighbouring buckets merged: the later figure, or the earlier if the later has none."""
    return a if b is None else b


def sparkline(
    out: Text, values: Sequence[float | None], cells: int, palette: KeyPalette, top: float = 1.0
) -> None:
    """`values` squeezed into `cells` blocks, 0 to `top` (above it: a full block), each block
    coloured by its fairness verdict; a blank where there is no figure yet. Padded to `cells`."""
    shown = squeeze(values, cells, last_known)
    for value in shown:
        if value is None:
            out.append(" ")
            continue
        level = max(0, min(len(SPARKS) - 1, int(value / top * len(SPARKS))))
        out.append(SPARKS[level], palette.verdict(value))
    if len(shown) < cells:
        out.append(" " * (cells - len(shown)), DIM)
