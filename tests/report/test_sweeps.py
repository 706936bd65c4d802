"""Sweeps in the report, from hand-made results: a section per swept scenario with one plot
per figure against the swept value, a table of the results' own numbers, and findings that
follow the figures; nothing of the kind without a sweep."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from ckviz.model.results import Results, RunResult
from ckviz.report.findings import sweep_findings
from ckviz.report.html import render_html
from ckviz.report.markdown import render_markdown
from ckviz.report.sources import load_sources
from ckviz.report.sweeps import SweepView, sweep_views
from ckviz.report.views import scenario_views
from tests.report.handmade import SEEDS, results, skew_like, swept, write
from tests.report.test_documents import EXTERNAL, TagBalance, svg_of

pytestmark = pytest.mark.slow

SVG = "{http://www.w3.org/2000/svg}"
KINDS = ["sweep-worst-share", "sweep-jain", "sweep-light-wait", "sweep-cost"]
# baseline starves more as light keys are added; sfq stays fair
FIGURES = {
    10: {"baseline": 0.50, "sfq": 0.90},
    100: {"baseline": 0.20, "sfq": 0.92},
    1000: {"baseline": 0.05, "sfq": 0.95},
}


def pages(tmp_path: Path, *files: Results) -> tuple[str, str, list[SweepView]]:
    html, md, sweeps = texts(tmp_path, *files)
    return html(), md, sweeps


def texts(tmp_path: Path, *files: Results) -> tuple[Callable[[], str], str, list[SweepView]]:
    """The HTML page drawn only when asked for (its plots are most of a report's cost), the
    Markdown and the sweep views."""
    paths = [str(write(tmp_path / f"r{i}.json", res)) for i, res in enumerate(files)]
    sources = load_sources(paths)
    scenarios = scenario_views(sources)
    return (
        lambda: render_html(sources, scenarios),
        render_markdown(sources, scenarios),
        sweep_views(sources, scenarios),
    )


def sweep_section(page: str) -> ET.Element:
    root = ET.fromstring(page.split("\n", 1)[1])
    (section,) = [s for s in root.iter("section") if s.get("class") == "sweep"]
    return section


def test_a_sweep_gets_a_section_with_one_plot_per_figure(tmp_path: Path) -> None:
    page, md, _ = pages(tmp_path, swept(FIGURES))
    parser = TagBalance()
    parser.feed(page)
    parser.close()
    assert parser.open == []
    section = sweep_section(page)
    assert section.get("data-sweep") == "ck_many_keys"
    assert section.findtext("h2") == "Sweep: ck_many_keys over light.count"
    figures = section.findall("figure")
    assert [f.get("data-figure") for f in figures] == KINDS
    for figure in figures:
        svg = ET.fromstring(svg_of(str(figure.find("img").get("src"))))  # type: ignore[union-attr]
        lines = [p for p in svg.iter(f"{SVG}g") if (p.get("id") or "").startswith("line2d")]
        assert len(lines) >= 2  # baseline's and sfq's (and the axes' ticks)
    assert "### Sweep: ck\\_many\\_keys over light.count" in md.splitlines()
    # the variants keep their own sections too, after the sweep's
    assert page.index('id="sweep-0"') < page.index('id="scenario-0"')
    assert page.count('<section id="scenario-') == 3


def test_the_table_holds_the_results_own_figures(tmp_path: Path) -> None:
    res = swept(FIGURES)
    _, md, _ = texts(tmp_path, res)
    rows = {
        (cells[0], cells[1]): cells[2:]
        for line in md.splitlines()
        if line.startswith("| ")
        and (cells := [c.strip() for c in line.strip("|").split("|")])
        and cells[0].isdigit()
    }
    assert len(rows) == 6  # the sweep's table; the variants' tables start with a treatment
    for entry in res.scenarios:
        assert entry.sweep is not None
        for label in ("baseline", "sfq"):
            runs = [r for r in entry.runs if r.treatment == label]
            worst, jain, light, cost = rows[(str(entry.sweep.value), label)]
            assert worst == _spread([r.metrics.contention_worst_share_over_weight for r in runs])
            assert jain == _spread([r.metrics.contention_jain for r in runs])
            assert light == _spread([_light_wait(r) for r in runs], 1)
            per_run = [r.metrics.wall_clock_ms / r.metrics.total_dequeued for r in runs]
            assert cost == _spread(per_run, 3)


def _light_wait(run: RunResult) -> float:
    return next(k.mean_wait for k in run.metrics.per_key if k.key == "light")


def _spread(values: list[float], digits: int = 5) -> str:
    mean = sum(values) / len(values)
    if min(values) == max(values):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ({min(values):.{digits}f}..{max(values):.{digits}f})"


def test_the_findings_follow_the_figures(tmp_path: Path) -> None:
    _, md, (sweep,) = texts(tmp_path, swept(FIGURES))
    lines = sweep_findings(sweep)
    assert lines[0] == (
        "As light.count grows from 10 to 1000, worst share/weight falls for baseline "
        "(0.505 -> 0.055); stays within 10% for sfq (0.905 -> 0.955)."
    )
    assert lines[2] == (
        "Cost per dequeued run (wall ms: timing, depends on the machine) from light.count = 10 "
        "to 1000: baseline stays flat (1.03 -> 1.52 ms); sfq grows x59.8 (2.52 -> 151.03 ms)."
    )
    assert f"- {lines[1]}".replace(">", "\\>") in md
    moved = {**FIGURES, 1000: {"baseline": 0.05, "sfq": 0.40}}  # sfq now starves too
    (sweep,) = texts(tmp_path, swept(moved))[2]
    assert sweep_findings(sweep)[0] == (
        "As light.count grows from 10 to 1000, worst share/weight falls for baseline "
        "(0.505 -> 0.055) and sfq (0.905 -> 0.405)."
    )


def test_the_x_axis_is_logarithmic_only_for_wide_positive_values(tmp_path: Path) -> None:
    views = {}
    for name, values in {"wide": [10, 1000], "narrow": [2, 8], "zero": [0, 1000]}.items():
        (sweep,) = texts(tmp_path, swept({v: {"baseline": 0.5} for v in values}, ["s"]))[2]
        views[name] = sweep.log_x
    assert views == {"wide": True, "narrow": False, "zero": False}


def test_no_sweep_no_section_and_one_value_is_no_curve(tmp_path: Path) -> None:
    page, md, sweeps = pages(tmp_path, results(skew_like()))
    assert sweeps == [] and "Sweep" not in page and "Sweep" not in md
    page, md, sweeps = pages(tmp_path, swept({10: FIGURES[10]}))
    assert sweeps == [] and 'class="sweep"' not in page and "### Sweep" not in md
    assert "ck\\_many\\_keys\\[light.count=10\\]" in md  # the variant itself still reports


def test_two_files_draw_a_line_per_treatment_and_file(tmp_path: Path) -> None:
    for folder in ("main", "pr"):
        (tmp_path / folder).mkdir()
    a = write(tmp_path / "main" / "s.json", swept(FIGURES))
    b = write(tmp_path / "pr" / "s.json", swept({**FIGURES, 1000: {"baseline": 0.5, "sfq": 0.9}}))
    sources = load_sources([str(a), str(b)])
    (sweep,) = sweep_views(sources, scenario_views(sources))
    assert [line.label for line in sweep.lines] == [
        "baseline · main/s",
        "sfq · main/s",
        "baseline · pr/s",
        "sfq · pr/s",
    ]
    assert "baseline · pr/s (0.505 -> 0.505)" in sweep_findings(sweep)[0]


def test_a_sweep_report_is_the_same_each_time_and_fetches_nothing(tmp_path: Path) -> None:
    page, md, _ = pages(tmp_path, swept(FIGURES))
    assert page == pages(tmp_path, swept(FIGURES))[0]
    assert not EXTERNAL.search(page) and not EXTERNAL.search(md)
    for src in re.findall(r'src="([^"]*)"', page):
        assert all(r.startswith("#") for r in re.findall(r'href="([^"]*)"', svg_of(src)))


def test_seeds_give_a_band(tmp_path: Path) -> None:
    """Two seeds differ (handmade adds i/100 per seed): the plots shade min..max."""
    one = sweep_section(pages(tmp_path, swept(FIGURES, ["s"]))[0])
    two = sweep_section(pages(tmp_path, swept(FIGURES, SEEDS))[0])

    def bands(section: ET.Element) -> int:
        img = section.find("figure/img")
        svg = ET.fromstring(svg_of(str(img.get("src"))))  # type: ignore[union-attr]
        return sum((g.get("id") or "").startswith("FillBetween") for g in svg.iter(f"{SVG}g"))

    assert bands(one) == 0 and bands(two) == 2
