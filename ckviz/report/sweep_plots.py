"""The report's figures against a swept value (`ckviz report` on a sweep matrix): a line per
treatment through the means over seeds, drawn as plots.py draws every figure."""

from __future__ import annotations

from typing import Literal

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from ckviz.report.plots import KEY_COLOURS, Getter, plain_numbers
from ckviz.report.svg import drawing_style, to_svg
from ckviz.report.sweeps import SweepView, value_text

SweepScale = Literal["share", "wait", "cost"]
MARKERS = ("o", "s", "^", "D", "v", "P")
MAX_VALUE_TICKS = 12  # more swept values than this: matplotlib's own ticks, not one per value


def sweep_svg(sweep: SweepView, title: str, get: Getter, scale: SweepScale) -> str:
    """One figure against the swept value: a line per treatment through the means over seeds,
    a band from min to max where they differ."""
    with drawing_style():
        fig = Figure(figsize=(5.4, 2.8), layout="constrained")
        ax = fig.subplots()
        spreads = [s for line in sweep.lines for _, s in line.figure(get)]
        lowest = min((s.min for s in spreads), default=0.0)
        highest = max((s.max for s in spreads), default=0.0)
        for i, line in enumerate(sweep.lines):
            points = line.figure(get)
            if not points:
                continue
            xs = [float(v) for v, _ in points]
            colour = KEY_COLOURS[i % len(KEY_COLOURS)]
            ax.plot(
                xs,
                [s.mean for _, s in points],
                color=colour,
                linewidth=1.2,
                markersize=3.5,
                marker=MARKERS[i % len(MARKERS)],
                label=line.label,
            )
            if any(s.min != s.max for _, s in points):
                ax.fill_between(
                    xs,
                    [s.min for _, s in points],
                    [s.max for _, s in points],
                    color=colour,
                    alpha=0.18,
                    linewidth=0,
                )
        _sweep_x(ax, sweep)
        _sweep_y(ax, scale, wide=lowest > 0 and highest >= 10 * lowest)
        ax.set_title(title, loc="left")
        ax.grid(linewidth=0.4, alpha=0.5)
        fig.legend(loc="outside right upper", frameon=False, fontsize=7)
        return to_svg(fig)


def _sweep_x(ax: Axes, sweep: SweepView) -> None:
    if sweep.log_x:
        ax.set_xscale("log")
    if len(sweep.values) <= MAX_VALUE_TICKS:
        ax.set_xticks([float(v) for v in sweep.values], [value_text(v) for v in sweep.values])
        ax.xaxis.set_minor_locator(NullLocator())
    else:
        plain_numbers(ax.xaxis)
    ax.set_xlabel(sweep.parameter)


def _sweep_y(ax: Axes, scale: SweepScale, wide: bool) -> None:
    """Shares and a narrow cost linear from 0; waits linear up to 10 then logarithmic; a
    cost spanning 10x or more logarithmic."""
    if scale == "wait":
        ax.set_yscale("symlog", linthresh=10)
    elif scale == "cost" and wide:
        ax.set_yscale("log")
    if scale != "cost" or not wide:
        ax.set_ylim(bottom=0)
    plain_numbers(ax.yaxis)
