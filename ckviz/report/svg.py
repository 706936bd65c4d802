"""The report's figures as SVG: the style every figure is drawn in, and the one draw that
writes a figure (plots.py, strip_plot.py and sweep_plots.py make the figures)."""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from typing import Any

import matplotlib
from matplotlib.axis import Axis
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

STYLE: dict[Any, Any] = {  # keys are rcParams names
    "svg.fonttype": "path",  # glyphs as paths: no font lookup when the page is opened
    "svg.hashsalt": "ckviz",  # stable ids: the same results give the same SVG
    "font.family": "DejaVu Sans",  # shipped with matplotlib, so every machine draws the same
    "font.size": 8,
    "text.parse_math": False,  # key names are text, `$` included
    "axes.spines.top": False,
    "axes.spines.right": False,
}


@contextlib.contextmanager
def drawing_style() -> Iterator[None]:
    with matplotlib.rc_context(STYLE), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        yield


def to_svg(fig: Figure) -> str:
    """The figure drawn once, laid out at the start of that draw: `savefig` draws a laid-out
    figure twice (once without output, to lay it out, then to write it) for the same bytes,
    and the draw is most of a figure's CPU."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            _unplaced_if_empty(axis)
    buf = io.StringIO()
    FigureCanvasSVG(fig).print_svg(buf, metadata={"Date": None})  # type: ignore[no-untyped-call]
    return buf.getvalue()


def _unplaced_if_empty(axis: Axis) -> None:
    """An axis with no label: its empty label hidden where it stands, which spares matplotlib
    measuring every tick label at each layout pass and draw to place it (the same SVG)."""
    if not axis.label.get_text():
        axis.label.set_visible(False)
        axis.set_label_coords(0, 0)
