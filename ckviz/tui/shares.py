"""Served share over time: a lane's dequeues per slice of logical time, split by key (the keys
served most on their own, the rest together), drawn as stacked columns in the keys' colours.

Textual-free on purpose (lint-imports keeps Textual out): the share view (`h`) shows these
lines for each lane, and tests read them without a terminal. The slices are the run's history
buckets (ckviz.model.history: at most 64, merged two by two as the run grows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from ckviz.model.history import History
from ckviz.model.snapshot import Snapshot
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import BOLD, DIM, fit

OWN_KEYS = 5  # keys drawn in their own colour; the rest are one band
HEIGHT = 8  # rows of the chart
OTHERS = "others"
OTHERS_STYLE = Style(dim=True)
FULL, REST = "█", "▒"


@dataclass(frozen=True, slots=True)
class ShareChart:
    """A lane's served shares: per slice, each drawn key's share of that slice's dequeues."""

    discipline: str
    keys: tuple[str, ...]  # drawn on their own, most served first (then OTHERS, if any)
    slices: tuple[tuple[float, ...], ...]  # per slice: the keys' shares, then the others'
    served: tuple[int, ...]  # dequeues per slice
    totals: tuple[float, ...]  # each key's share of the lane's dequeues so far (others last)
    weights: tuple[float, ...]  # each key's weight share (others last)
    width: int  # logical time per slice (ms, or steps)
    unit: str

    @property
    def has_others(self) -> bool:
        return len(self.totals) > len(self.keys)


def share_chart(snapshot: Snapshot, own: int = OWN_KEYS) -> ShareChart | None:
    """`snapshot`'s lane as a chart (None: the frame keeps no history, as a live queue's)."""
    history = snapshot.history
    if history is None:
        return None
    served = {key: _served(history, key) for key in history.tracks}
    total_by_key = {key: sum(cells) for key, cells in served.items()}
    ranked = sorted(total_by_key, key=lambda k: (-total_by_key[k], k))
    keys = tuple(ranked[:own])  # a key served nothing is drawn too: its 0% says it
    rest = [k for k in served if k not in keys]
    slices, per_slice = [], []
    for b in range(history.buckets):
        count = sum(cells[b] for cells in served.values())
        per_slice.append(count)
        own_shares = [served[k][b] / count if count else 0.0 for k in keys]
        others = 1.0 - sum(own_shares) if count else 0.0
        slices.append((*own_shares, *((others,) if rest else ())))
    grand = sum(total_by_key.values())
    weight_sum = sum(history.weights.get(k, 1.0) for k in served) or 1.0
    totals = [total_by_key[k] / grand if grand else 0.0 for k in keys]
    weights = [history.weights.get(k, 1.0) / weight_sum for k in keys]
    if rest:
        totals.append(sum(total_by_key[k] for k in rest) / grand if grand else 0.0)
        weights.append(sum(history.weights.get(k, 1.0) for k in rest) / weight_sum)
    return ShareChart(
        snapshot.discipline,
        keys,
        tuple(slices),
        tuple(per_slice),
        tuple(totals),
        tuple(weights),
        history.width_ms,
        snapshot.time_unit,
    )


def _served(history: History, key: str) -> list[int]:
    return [0 if cell is None else cell.served for cell in history.cells(key)]


def chart_lines(chart: ShareChart, palette: KeyPalette, height: int = HEIGHT) -> list[Text]:
    """The chart (100% on top, one column per slice), its time axis, then a line per key:
    its colour, its share of the lane's dequeues so far and its weight's share."""
    names = [*chart.keys, *((OTHERS,) if chart.has_others else ())]
    styles = [palette.style(k) for k in chart.keys] + [OTHERS_STYLE] * chart.has_others
    lines = [
        Text(f"{chart.discipline} · served share per slice of {chart.width}{chart.unit}", BOLD)
    ]
    for row in range(height, 0, -1):
        level = (row - 0.5) / height  # the share at this row's middle, from the bottom
        out = Text(f"{100 * row // height:>3}% ", DIM)
        for shares, count in zip(chart.slices, chart.served, strict=True):
            out.append(*_cell(shares, count, level, styles, chart.has_others))
        lines.append(out)
    span = len(chart.slices) * chart.width
    axis = fit("0", 5) + fit(f"→ {span}{chart.unit}", max(1, len(chart.slices)))
    lines.append(Text(axis, DIM))
    for name, style, total, weight in zip(names, styles, chart.totals, chart.weights, strict=True):
        line = Text("  ")
        line.append(REST if name == OTHERS else FULL, style).append(" ")
        line.append(fit(name, 16), style)
        line.append(f" {100 * total:5.1f}% of dequeues · weight {100 * weight:5.1f}%")
        lines.append(line)
    if not any(chart.served):
        lines.append(Text("  (nothing served yet)", DIM))
    return lines


def _cell(
    shares: Sequence[float], count: int, level: float, styles: Sequence[Style], others: bool
) -> tuple[str, Style | None]:
    """The glyph at `level` of one slice's stacked column (the most served key at the bottom)."""
    if not count:
        return " ", None
    reached = 0.0
    for n, share in enumerate(shares):
        reached += share
        if level < reached:
            last = others and n == len(shares) - 1
            return (REST if last else FULL), (OTHERS_STYLE if last else styles[n])
    return " ", None
