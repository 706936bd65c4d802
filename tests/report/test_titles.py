"""No chart title runs into another or off its figure, however long the treatment labels and
file names (each title is measured as matplotlib lays the figure out); the attainment charts
(keys, tenants) show who gained, their axes past 1."""

from __future__ import annotations

import importlib
import warnings
from itertools import combinations
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ckviz.model.results import RunResult, TenantRowResult
from ckviz.report import plots, strip_plot
from ckviz.report.sources import load_sources
from ckviz.report.views import ScenarioView, scenario_views
from tests.report.handmade import SEEDS, key_row, results, run, write

LONG = ["baseline", "vtime-v17+per-key-cap-4+total-cap-16", "codel-sfq-with-a-long-name", "sfq"]


def long_runs() -> list[RunResult]:
    out = []
    for i, seed in enumerate(SEEDS):
        for j, label in enumerate(LONG):
            r = run(label, seed, 14.0 + i + j, discipline="baseline" if j == 1 else label)
            rows = [key_row(f"tenant-{k:02d}", 10.0) for k in range(20)]
            for k, row in enumerate(rows):
                row.fair_share_attainment = 15.2 if k == 0 else 0.4 + k / 40
            r.metrics.per_key = rows
            r.metrics.most_underserved_key = "tenant-01"
            r.metrics.most_underserved_attainment = 0.425
            r.metrics.per_tenant = [  # a sybil split: one tenant over 19 keys, one honest
                TenantRowResult(
                    tenant="sybil", keys=[k.key for k in rows[1:]], owed=10.0, dequeued=19,
                    fair_share_attainment=1.9,
                ),
                TenantRowResult(
                    tenant="honest", keys=["tenant-00"], owed=10.0, dequeued=1,
                    fair_share_attainment=0.1,
                ),
            ]  # fmt: skip
            out.append(r)
    return out


def scenario(tmp_path: Path) -> ScenarioView:
    folders = [tmp_path / "main-branch-results", tmp_path / "pull-request-results"]
    paths = []
    for folder in folders:
        folder.mkdir()
        paths.append(str(write(folder / "results.json", results(long_runs()))))
    (view,) = scenario_views(load_sources(paths))
    return view


def drawn(monkeypatch: pytest.MonkeyPatch, draw: object, view: ScenarioView) -> Figure:
    figures: list[Figure] = []
    module = importlib.import_module(draw.__module__)  # type: ignore[attr-defined]
    monkeypatch.setattr(module, "to_svg", lambda fig: figures.append(fig) or "<svg/>")
    draw(view)  # type: ignore[operator]
    (fig,) = figures
    return fig


@pytest.mark.parametrize(
    "draw",
    [
        plots.fairness_svg,
        plots.attainment_svg,
        plots.tenant_attainment_svg,
        strip_plot.strip_svg,
        plots.wait_cdf_svg,
        plots.service_svg,
        plots.caps_svg,
    ],
)
def test_no_title_overlaps_another_or_leaves_its_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, draw: object
) -> None:
    fig = drawn(monkeypatch, draw, scenario(tmp_path))
    canvas = FigureCanvasAgg(fig)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        canvas.draw()  # a figure too short for its titles is not laid out, and says so
    assert [str(w.message) for w in said] == []
    renderer = canvas.get_renderer()
    whole = fig.bbox
    boxes = [
        t.get_window_extent(renderer)
        for ax in fig.axes
        if ax.get_visible()
        for t in (ax.title, ax._left_title, ax._right_title)
        if t.get_text()
    ]
    assert boxes
    for box in boxes:
        assert box.x0 >= whole.x0 - 1 and box.x1 <= whole.x1 + 1, box
        assert box.y0 >= whole.y0 - 1 and box.y1 <= whole.y1 + 1, box
    for a, b in combinations(boxes, 2):
        assert not a.overlaps(b), (a, b)


def test_the_attainment_chart_shows_who_gained_past_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fig = drawn(monkeypatch, plots.attainment_svg, scenario(tmp_path))
    shown = [ax for ax in fig.axes if ax.get_visible()]
    for ax in shown:
        assert ax.get_xlim()[1] > 15.2  # the flooder's 15.2x is on the axis
        names = [t.get_text() for t in ax.get_yticklabels()]
        assert "tenant-00" in names and "tenant-01" in names  # who gained, who lost


def test_the_tenant_chart_shows_the_sybil_tenants_gain_past_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fig = drawn(monkeypatch, plots.tenant_attainment_svg, scenario(tmp_path))
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert len(shown) == 2 * len(LONG)  # every treatment of both files
    for ax in shown:
        assert ax.get_xlim()[1] > 1.9
        assert [t.get_text() for t in ax.get_yticklabels()] == ["honest", "sybil"]
        assert ax.get_title(loc="left").replace("\n", " ").endswith("1 of 2 tenants below 1")
