"""The report's figures: matplotlib drawing SVG text with every glyph as a path (the font
travels inside the file, so a page renders the same with no fonts installed).

With sweep_plots.py (the figures against a swept value), strip_plot.py (the keys over time)
and svg.py (the style and the draw), the only modules that import matplotlib. They use the
object API (`Figure`, no pyplot): no global figure state, no GUI backend, nothing kept between
figures."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Iterator, Sequence

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from ckviz.model.results import Spread, TimelineResult
from ckviz.report.svg import drawing_style, to_svg
from ckviz.report.views import Row, ScenarioView, SourceView

SOURCE_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860")
KEY_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
    "#17becf",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
)
LIGHT_COLOUR, POOLED_COLOUR = "#000000", "#b0b0b0"
PANEL_COLUMNS = 4
CHAR_INCHES = 8 * 0.62 / 72  # about one character's width at the style's 8 pt
TITLE_LINE_INCHES = 8 * 1.2 / 72  # a title line's height at 8 pt


def titled(ax: Axes, text: str, width_in: float) -> None:
    """The panel's title, wrapped to the panel's width (a long treatment label, a file's
    name beside it) so it never runs into the next panel's. Its height is given (the top of
    the axes, where matplotlib would put it: no panel has ticks or an offset above it), which
    spares matplotlib measuring every tick label again at each draw to find that out."""
    ax.set_title(wrapped(text, width_in), loc="left", y=1.0)


def wrapped(text: str, width_in: float) -> str:
    return textwrap.fill(text, max(8, int(width_in / CHAR_INCHES)))


Getter = Callable[[Row], Spread | None]


def has_attainment(scenario: ScenarioView) -> bool:
    """Whether the runs carry the demand-aware figures (files from before them do not)."""
    return any(r.attainment is not None for v in scenario.views for r in v.rows)


def fairness_svg(scenario: ScenarioView) -> str:
    """Per treatment (bars: mean, whiskers: min..max over seeds): the most under-served key's
    fair-share attainment, worst share/weight and Jain, and the light key's mean wait (older
    files: the worst-served key's)."""
    panels: list[tuple[str, Getter, bool]] = []
    if has_attainment(scenario):
        what = "fair-share attainment (most under-served key)"
        panels.append((what, lambda r: r.attainment, False))
    panels += [
        ("worst share/weight", lambda r: r.worst_share, False),
        ("Jain", lambda r: r.jain, False),
    ]
    if scenario.light_key is not None:
        what = f"{scenario.light_key} mean wait, {scenario.unit}"
        panels.append((what, lambda r: r.light_wait, True))
    elif not has_attainment(scenario):
        what = f"worst-served key mean wait, {scenario.unit}"
        panels.append((what, lambda r: r.worst_wait, True))
    return _bar_panels(scenario, panels)


def caps_svg(scenario: ScenarioView) -> str:
    """The caps treatments: the headline wait and the makespan, capped rows hatched."""
    u = scenario.unit
    what = f"{scenario.light_key} mean wait, {u}" if scenario.light_key else f"worst-key wait, {u}"
    wait: Getter = (lambda r: r.light_wait) if scenario.light_key else (lambda r: r.worst_wait)
    return _bar_panels(
        scenario, [(what, wait, True), (f"makespan, {u}", lambda r: r.makespan, False)]
    )


MAX_KEY_BARS = 15  # keys per attainment panel: the lowest, and the highest few
HIGHEST_BARS = 3  # of them, the most over-served: who gained (the axis runs past 1)
BAR_COLOURS = ((0.5, "#c44e52"), (0.9, "#dd8452"), (1.1, "#4c72b0"), (math.inf, "#55a868"))
NOT_A_NUMBER = "#999999"  # an attainment a results file holds as NaN or Infinity, said


def attainment_svg(scenario: ScenarioView) -> str:
    """Per treatment (first seed): each judged key's fair-share attainment, lowest first (at
    most MAX_KEY_BARS of them, the last HIGHEST_BARS the most over-served), red below 0.5,
    orange below 0.9, green above 1.1; the line at 1 is its share, the axis runs to the
    highest."""
    return _attainment_bars(_panels(scenario), _judged, "keys")


def has_tenants(scenario: ScenarioView) -> bool:
    """Whether some run carries the tenant grain (keys that belong to tenants)."""
    return any(r.first.metrics.per_tenant for v in scenario.views for r in v.rows)


def tenant_attainment_svg(scenario: ScenarioView) -> str:
    """The tenant grain as the keys' chart draws the key grain: per treatment (first seed),
    each judged tenant's attainment, lowest first, the axis past 1 to the highest (a tenant
    that split its load over many keys shows what it gained)."""
    panels = [(title, r) for title, r in _panels(scenario) if r.first.metrics.per_tenant]
    return _attainment_bars(panels, _judged_tenants, "tenants")


def _attainment_bars(
    panels: list[tuple[str, Row]], judged_of: Callable[[Row], dict[str, float]], what: str
) -> str:
    cols = min(PANEL_COLUMNS, len(panels))
    rows = math.ceil(len(panels) / cols)
    shown = max(1, max(min(len(judged_of(r)), MAX_KEY_BARS) for _, r in panels))
    titles = [
        f"{title}: {sum(a < 1 for a in judged_of(row).values())} of {len(judged_of(row))} "
        f"{what} below 1"
        for title, row in panels
    ]
    lines = max(wrapped(t, 1.9).count("\n") + 1 for t in titles)
    with drawing_style():
        tall = 0.6 + 0.13 * shown + TITLE_LINE_INCHES * max(0, lines - 2)  # two fit anyway
        fig = Figure(figsize=(2.4 * cols + 0.6, tall * rows + 0.5), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False).flatten()  # own axis: who gained shows
        for ax, (_, row), title in zip(axes, panels, titles, strict=False):
            lowest = _shown_keys(judged_of(row))
            titled(ax, title, 1.9)
            ax.set_xlim(0, max([1.1, *(a * 1.05 for _, a in lowest if math.isfinite(a))]))
            _attainments(ax, [a for _, a in lowest])
            ax.set_yticks(range(len(lowest)), [k for k, _ in lowest], fontsize=6.5)
            ax.invert_yaxis()
            ax.axvline(1.0, color="#333333", linewidth=0.8)
            ax.set_xlabel("got / owed (1 = fair share)")
        for ax in axes[len(panels) :]:
            ax.set_visible(False)
        return to_svg(fig)


def _attainments(ax: Axes, attainments: list[float]) -> None:
    """A bar each, coloured by how far from fair; an attainment that is not a number (a
    results file can hold NaN or Infinity) gets no bar, which would be drawn nowhere or
    endless, but says what it is where the bar would start."""
    bars = [(y, a) for y, a in enumerate(attainments) if math.isfinite(a)]
    colours = [next(c for bar, c in BAR_COLOURS if a < bar) for _, a in bars]
    ax.barh([y for y, _ in bars], [a for _, a in bars], color=colours, height=0.7)
    for y, a in enumerate(attainments):
        if not math.isfinite(a):
            ax.text(0, y, f" {a}", color=NOT_A_NUMBER, va="center", fontsize=6.5)


def _shown_keys(judged: dict[str, float]) -> list[tuple[str, float]]:
    """The lowest keys and, after them, the highest few (all of them when few)."""
    ordered = sorted(judged.items(), key=_lowest_first)
    if len(ordered) <= MAX_KEY_BARS:
        return ordered
    return ordered[: MAX_KEY_BARS - HIGHEST_BARS] + ordered[-HIGHEST_BARS:]


def _lowest_first(item: tuple[str, float]) -> tuple[bool, float, str]:
    """Attainments lowest first, then any that is not a number (NaN sorts nowhere)."""
    key, attainment = item
    return (math.isnan(attainment), 0.0 if math.isnan(attainment) else attainment, key)


def _judged(row: Row) -> dict[str, float]:
    return {
        k.key: k.fair_share_attainment
        for k in row.first.metrics.per_key
        if k.fair_share_attainment is not None
    }


def _judged_tenants(row: Row) -> dict[str, float]:
    return {
        t.tenant: t.fair_share_attainment
        for t in row.first.metrics.per_tenant or []
        if t.fair_share_attainment is not None
    }


def _bar_panels(scenario: ScenarioView, panels: Sequence[tuple[str, Getter, bool]]) -> str:
    labels = scenario.labels
    n = len(scenario.views)
    height = 0.9 + len(labels) * (0.22 + 0.16 * n)
    with drawing_style():
        fig = Figure(figsize=(2.6 * len(panels) + 1.2, height), layout="constrained")
        axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
        for ax, (title, get, log) in zip(axes, panels, strict=True):
            for i, view in enumerate(scenario.views):
                _bars(ax, view, labels, get, i, n)
            titled(ax, title, 2.4)
            if log:
                _log_x(ax)
            ax.grid(axis="x", linewidth=0.4, alpha=0.5)
        axes[0].set_yticks(range(len(labels)), labels)
        axes[0].invert_yaxis()
        if n > 1:  # one entry per results file, taken from one panel
            handles, names = axes[0].get_legend_handles_labels()
            fig.legend(handles, names, loc="outside lower center", ncols=min(n, 4), frameon=False)
        return to_svg(fig)


def _log_x(ax: Axes) -> None:
    """Linear up to 10 ms, logarithmic past it: 14 ms and 1321 ms on one axis, 0 included."""
    ax.set_xscale("symlog", linthresh=10)
    plain_numbers(ax.xaxis)


def _bars(ax: Axes, view: SourceView, labels: list[str], get: Getter, i: int, n: int) -> None:
    width = 0.8 / n
    ys, means, lows, highs, hatches = [], [], [], [], []
    for y, label in enumerate(labels):
        row = view.row(label)
        spread = get(row) if row else None
        if row is None or spread is None:
            continue
        at = y - 0.4 + width * (i + 0.5)
        if not math.isfinite(spread.mean):  # NaN or Infinity in the file: said, not drawn
            ax.text(0, at, f" {spread.mean}", color=NOT_A_NUMBER, va="center", fontsize=6.5)
            continue
        ys.append(at)
        means.append(spread.mean)
        lows.append(max(0.0, spread.mean - spread.min))  # a mean of equal floats can stray
        highs.append(max(0.0, spread.max - spread.mean))  # past them by an ulp
        hatches.append("///" if row.label != row.discipline else "")
    colour = SOURCE_COLOURS[i % len(SOURCE_COLOURS)]
    bars = ax.barh(
        ys,
        means,
        height=width * 0.9,
        xerr=[lows, highs],
        color=colour,
        error_kw={"elinewidth": 0.8, "capsize": 2},
        label=view.source,
    )
    for bar, hatch in zip(bars, hatches, strict=True):
        bar.set_hatch(hatch)


def _panels(scenario: ScenarioView) -> list[tuple[str, Row]]:
    return scenario.labelled_rows()


def _key_colours(scenario: ScenarioView) -> dict[str, str]:
    keys: dict[str, None] = {}
    for view in scenario.views:
        for row in view.rows:
            keys.update(dict.fromkeys(s.key for s in _series(row.first.metrics.timeline)))
    colours = {}
    for i, key in enumerate(k for k in keys if k != scenario.light_key):
        colours[key] = KEY_COLOURS[i % len(KEY_COLOURS)]
    colours[scenario.light_key or ""] = LIGHT_COLOUR
    return colours


def _series(timeline: TimelineResult | None) -> list:  # type: ignore[type-arg]
    return list(timeline.series) if timeline else []


def wait_cdf_svg(scenario: ScenarioView) -> str:
    """Per treatment (first seed): each key's wait distribution, share of runs waited <= x."""

    def draw(ax: Axes, timeline: TimelineResult, colour: Callable[[str, int], str]) -> None:
        shares = [p / 100 for p in timeline.wait_percentiles]
        for s in timeline.series:
            width = 1.6 if s.key == scenario.light_key else 0.9
            ax.plot(
                s.wait_quantiles,
                shares,
                color=colour(s.key, s.keys),
                linewidth=width,
                label=s.key,
                drawstyle="steps-post",
            )
        _log_x(ax)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(f"wait, {scenario.unit}")

    return _grid(scenario, draw)


def service_svg(scenario: ScenarioView) -> str:
    """Per treatment (first seed): each key's share of all runs served so far, over time."""

    def draw(ax: Axes, timeline: TimelineResult, colour: Callable[[str, int], str]) -> None:
        totals = [sum(col) for col in zip(*(s.served for s in timeline.series), strict=True)]
        shares = [
            [c / t if t else 0.0 for c, t in zip(s.served, totals, strict=True)]
            for s in timeline.series
        ]
        ax.stackplot(
            timeline.t_ms,
            shares,
            colors=[colour(s.key, s.keys) for s in timeline.series],
            labels=[s.key for s in timeline.series],
            linewidth=0,
        )
        ax.set_ylim(0, 1)
        ax.set_xlabel(f"time, {scenario.unit}")

    return _grid(scenario, draw)


def _grid(
    scenario: ScenarioView, draw: Callable[[Axes, TimelineResult, Callable[[str, int], str]], None]
) -> str:
    panels = _panels(scenario)
    colours = _key_colours(scenario)

    def colour(key: str, keys: int) -> str:
        return POOLED_COLOUR if keys > 1 else colours.get(key, POOLED_COLOUR)

    cols = min(PANEL_COLUMNS, len(panels))
    rows = math.ceil(len(panels) / cols)
    with drawing_style():
        fig = Figure(figsize=(2.4 * cols + 0.4, 1.9 * rows + 0.7), layout="constrained")
        axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False).flatten()
        handles: dict[str, Artist] = {}
        for ax, timeline in panel_timelines(list(axes), panels, 2.1):
            draw(ax, timeline, colour)
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(label, handle)
        if handles:
            fig.legend(
                list(handles.values()),
                list(handles),
                loc="outside right upper",
                frameon=False,
                fontsize=7,
            )
        return to_svg(fig)


def panel_timelines(
    axes: Sequence[Axes], panels: Sequence[tuple[str, Row]], width_in: float
) -> Iterator[tuple[Axes, TimelineResult]]:
    """Each panel's axes, titled, with its first seed's timeline to draw (a panel without one
    says so instead); the axes past the last panel are hidden once every panel is drawn."""
    for ax, (title, row) in zip(axes, panels, strict=False):
        titled(ax, title, width_in)
        timeline = row.first.metrics.timeline
        if timeline is None:
            ax.text(0.5, 0.5, "no timeline in this file", ha="center", transform=ax.transAxes)
            continue
        yield ax, timeline
    for ax in axes[len(panels) :]:
        ax.set_visible(False)


def plain_numbers(axis: Axis) -> None:
    """Ticks as plain numbers (math text is off: the default 10^k labels would show raw)."""
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())
