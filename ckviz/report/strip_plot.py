"""The report's key strip: per treatment, a row per key over time, drawn as plots.py draws
every figure (the app's key strip on paper)."""

from __future__ import annotations

import itertools
import math

import matplotlib
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import PathPatch
from matplotlib.path import Path

from ckviz.report.plots import panel_timelines
from ckviz.report.svg import drawing_style, to_svg
from ckviz.report.views import ScenarioView

GREYS = matplotlib.colormaps["Greys"]  # darker: more runs


def strip_svg(scenario: ScenarioView) -> str:
    """Per treatment (first seed): the keys over time, as the app's key strip: a row per key,
    each cell the runs it was dequeued in that stretch of time (darker: more)."""
    panels = scenario.labelled_rows()
    cols = min(2, len(panels))
    rows = math.ceil(len(panels) / cols)
    timelines = [r.first.metrics.timeline for _, r in panels]
    series = max((len(t.series) for t in timelines if t is not None), default=1)
    with drawing_style():
        size = (4.6 * cols + 0.4, (0.5 + 0.12 * series) * rows + 0.5)
        fig = Figure(figsize=size, layout="constrained")
        axes = fig.subplots(rows, cols, sharex=True, squeeze=False).flatten()
        spans = []
        for ax, timeline in panel_timelines(list(axes), panels, 4.2):
            served = [[b - a for a, b in itertools.pairwise(s.served)] for s in timeline.series]
            _shades(ax, list(timeline.t_ms), served)
            spans += [timeline.t_ms[0], timeline.t_ms[-1]]
            ax.set_ylim(len(served) - 0.5, -0.5)  # the first key on top
            ax.set_yticks(range(len(served)), [s.key for s in timeline.series], fontsize=6)
            ax.set_xlabel(f"time, {scenario.unit}")
        if spans:
            axes[0].set_xlim(min(spans), max(spans))  # shared: every panel's whole run
        return to_svg(fig)


def _shades(ax: Axes, edges: list[int], served: list[list[int]]) -> None:
    """A strip's cells as vector shapes (no raster image inside the SVG), one shape per shade
    of grey made of every cell of that count (a shape per cell made the strips half of the
    default matrix's report, 1.8 of 3.6 MB); the cells of the lowest count are the white
    behind them, as the colour map draws them."""
    counts = [c for row in served for c in row]
    if not counts:
        return
    low = min(counts)
    shade = Normalize(low, max(counts))
    cells: dict[int, list[tuple[int, int]]] = {}
    for y, row in enumerate(served):
        for x, count in enumerate(row):
            if count > low:
                cells.setdefault(count, []).append((x, y))
    for count, where in sorted(cells.items()):
        corners = [
            [(edges[x], y - 0.5), (edges[x + 1], y - 0.5), (edges[x + 1], y + 0.5),
             (edges[x], y + 0.5), (edges[x], y - 0.5)]
            for x, y in where
        ]  # fmt: skip
        codes = [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY] * len(where)
        shape = Path([p for c in corners for p in c], codes)
        ax.add_patch(
            PathPatch(shape, facecolor=GREYS(shade(count)), linewidth=0, antialiased=False)
        )
