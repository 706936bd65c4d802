"""The HTML and Markdown reports from hand-made results: well-formed, every figure there,
nothing fetched from anywhere, optional tables only when their figures are present."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ckviz.model.results import CheckResult, StepMetricsResult
from ckviz.report import plots
from ckviz.report.html import figure_kinds, render_html
from ckviz.report.markdown import render_markdown
from ckviz.report.sources import load_sources
from ckviz.report.views import scenario_views
from tests.report.handmade import SEEDS, results, run, skew_like, write

VOID = {"meta", "img", "br", "hr", "link", "input"}
EXTERNAL = re.compile(
    r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|@import|url\(\s*["']?(?:https?:)?//""", re.I
)


class TagBalance(HTMLParser):
    """Fails on a closing tag that does not close the innermost open one."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.images: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs))
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1:]}>"
        self.open.pop()


def report(tmp_path: Path, *runs_lists: list) -> tuple[str, list]:  # type: ignore[type-arg]
    paths = []
    for i, runs in enumerate(runs_lists):
        paths.append(str(write(tmp_path / f"r{i}.json", results(runs))))
    sources = load_sources(paths)
    scenarios = scenario_views(sources)
    return render_html(sources, scenarios), scenarios


def svg_of(data_uri: str) -> str:
    prefix = "data:image/svg+xml;base64,"
    assert data_uri.startswith(prefix)
    return base64.b64decode(data_uri[len(prefix) :]).decode("utf-8")


@pytest.mark.slow
def test_html_is_well_formed_and_holds_every_figure(tmp_path: Path) -> None:
    page, scenarios = report(tmp_path, skew_like(), skew_like(sfq_light=20.0))
    parser = TagBalance()
    parser.feed(page)
    parser.close()
    assert parser.open == []
    root = ET.fromstring(page.split("\n", 1)[1])  # also well-formed XML, doctype aside
    figures = root.findall(".//figure")
    kinds = figure_kinds(scenarios[0])
    assert kinds == ["fairness", "wait-cdf", "service", "strip", "caps"]  # per-key-cap: capped
    assert [f.get("data-figure") for f in figures] == kinds
    for img in parser.images:
        svg = ET.fromstring(svg_of(str(img["src"])))
        assert svg.tag == "{http://www.w3.org/2000/svg}svg"
        assert list(svg.iter("{http://www.w3.org/2000/svg}text")) == []  # glyphs are paths
        assert len(list(svg.iter("{http://www.w3.org/2000/svg}path"))) > 20
    assert "ck_handmade" in page and "sfq cuts light" in page


@pytest.fixture(scope="module")
def skew_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The HTML report of skew_like()'s results (drawn once for the tests that read it) and
    the folder of its file (the page names the file)."""
    folder = tmp_path_factory.mktemp("skew")
    return report(folder, skew_like())[0], folder


@pytest.mark.slow
def test_html_fetches_nothing_and_is_the_same_each_time(skew_page: tuple[str, Path]) -> None:
    page, folder = skew_page
    assert page == report(folder, skew_like())[0]  # fixed SVG ids, no dates
    assert not EXTERNAL.search(page)
    parser = TagBalance()
    parser.feed(page)
    for img in parser.images:
        svg = svg_of(str(img["src"]))
        refs = re.findall(r"""(?:xlink:)?href="([^"]*)\"""", svg)
        assert refs and all(r.startswith("#") for r in refs)  # only its own glyphs and clips
        assert "@import" not in svg and not re.search(r"url\((?!#)", svg)
    assert "<script" not in page and "<link" not in page


@pytest.mark.slow
def test_a_mean_of_equal_values_a_hair_off_them_still_draws(tmp_path: Path) -> None:
    seeds = ["seed-a", "seed-b", "seed-c"]  # (0.1 + 0.1 + 0.1) / 3 > 0.1
    runs = [
        run(label, s, 14.0, worst_share=0.1, jain=0.1)
        for label in ("baseline", "sfq")
        for s in seeds
    ]
    page, _ = report(tmp_path, runs)
    assert page.count("<figure") == 4


@pytest.mark.slow
def test_a_scenario_without_caps_has_no_caps_figure(tmp_path: Path) -> None:
    runs = [r for r in skew_like() if r.treatment != "per-key-cap"]
    page, scenarios = report(tmp_path, runs)
    assert figure_kinds(scenarios[0]) == ["fairness", "wait-cdf", "service", "strip"]
    assert page.count("<figure") == 4


def test_markdown_has_findings_tables_and_checks(tmp_path: Path) -> None:
    checks = [
        CheckResult(
            scenario="ck_handmade",
            rule="sfq light_key_mean_wait better_than baseline",
            status="passed",
            detail="14 vs baseline 1321",
        ),
        CheckResult(
            scenario="ck_handmade",
            rule="sfq makespan_ms at_most 1",
            status="failed",
            detail="1000 vs bound 1",
        ),
    ]
    path = write(tmp_path / "r.json", results(skew_like(), checks=checks))
    md = render_markdown(load_sources([str(path)]))
    lines = md.splitlines()
    # what failed leads: the status line, then each failed rule, before the report itself
    assert lines[0] == "**❌ ckviz --check (r): 1 of 2 rules failed**"
    assert lines[2] == "- FAILED ck\\_handmade: sfq makespan\\_ms at\\_most 1 (1000 vs bound 1)"
    assert lines.index("## ckviz report") > 2
    assert "### ck\\_handmade" in lines
    assert any(
        x.startswith("- sfq cuts light's mean wait from 1321 ms (baseline) to 14 ms (")
        for x in lines
    )
    header = next(line for line in lines if line.startswith("| treatment |"))
    assert "light mean wait ms" in header and "makespan ms" in header
    # a file from before the demand-aware figures: those cells say so ("-")
    assert "| sfq | - | - | - | 0.72000 | 0.80000 | 14.0 (13.5..14.5) | 1000 |" in lines
    assert "1 passed, 1 failed, 0 skipped" in lines
    assert "| FAILED | ck\\_handmade | sfq makespan\\_ms at\\_most 1 | 1000 vs bound 1 |" in lines
    assert not EXTERNAL.search(md) and "<img" not in md


def test_markdown_says_when_a_check_run_had_no_rules(tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", results(skew_like(), checks=[]))
    assert "No [[expect]] rules in the scenarios run." in render_markdown(load_sources([str(path)]))


STEPS = StepMetricsResult(
    victim_first_serve=480,
    victim_wait_p50=556,
    victim_wait_p95=628,
    victim_wait_p99=636,
    jain_nonzero=0.34207,
    drain_step=636,
    calls=160,
)


@pytest.mark.slow
def test_optional_figures_show_when_present_and_only_then(
    skew_page: tuple[str, Path], tmp_path: Path
) -> None:
    plain_page, _ = skew_page
    assert "Step harness" not in plain_page and "Virtual time" not in plain_page
    runs = [
        run(
            "vtime",
            seed,
            14.0,
            steps=STEPS,
            key_serves={"heavy": 10, "light": 10},
            vtime_floor_final=123.5,
            timeline=None,
        )
        for seed in SEEDS
    ] + [run("baseline", seed, 1321.0, steps=STEPS, timeline=None) for seed in SEEDS]
    sources = load_sources([str(write(tmp_path / "x.json", results(runs)))])
    scenarios = scenario_views(sources)
    page = render_html(sources, scenarios)
    md = render_markdown(sources, scenarios)
    for text in (page, md):
        assert "Step harness: micro timings" in text and "victim" in text and "556" in text
        assert "Virtual time: serves per key" in text and "(starvation)" not in text
        assert "Virtual time: final floor" in text and "123.5" in text
    assert "| light | 10 |" in md  # key_serves: a row per key, a column per treatment carrying it
    assert "makespan steps" in md and "1321 steps" in md  # the step harness counts steps
    assert page.count("<figure") == 1  # no timelines: no CDF or service figure


def test_a_long_optional_table_is_cut_and_says_so(tmp_path: Path) -> None:
    serves = {f"k{i}": i for i in range(100)}
    runs = [run("sfq", s, 14.0, key_serves=serves) for s in SEEDS]
    sources = load_sources([str(write(tmp_path / "x.json", results(runs)))])
    md = render_markdown(sources)
    assert "| k59 | 59 |" in md and "| k60 |" not in md
    assert "<sub>first 60 of 100 rows</sub>" in md


def test_the_report_lists_the_seeds_actually_run(tmp_path: Path) -> None:
    """A trace runs its matrix's first seed only: the report names that one, not the list."""
    one = [r for r in skew_like() if r.seed == SEEDS[0]]
    sources = load_sources([str(write(tmp_path / "trace.json", results(one)))])
    assert sources[0].results.matrix.seeds == SEEDS  # the matrix listed two
    md = render_markdown(sources)
    assert f"seeds run: {SEEDS[0]})" in md and SEEDS[1] not in md
    page = render_html(sources, scenario_views(sources))
    assert "<th>seeds run</th>" in page and SEEDS[1] not in page


def test_the_files_table_names_a_file_as_given_never_where_it_lives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report is shared: a whole path (one the shell expanded from ~, say) shows as the
    file's name, not the author's folders; a path relative to the working folder as typed."""
    monkeypatch.setattr(plots, "to_svg", lambda fig: "<svg/>")  # the table is what is read
    home = tmp_path / "home" / "alice"
    for folder in ("main", "pr"):
        (home / folder).mkdir(parents=True)
        write(home / folder / "results.json", results(skew_like()))
    monkeypatch.chdir(home)
    sources = load_sources([str(home / "main" / "results.json"), "pr/results.json"])
    page = render_html(sources, scenario_views(sources))
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td>", page)
    assert ("main/results", "results.json") in rows and ("pr/results", "pr/results.json") in rows
    assert str(tmp_path) not in page and "alice" not in page
