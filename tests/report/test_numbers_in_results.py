"""Numbers no run writes, in a results file read back (issue 35 item 5): an integer past 2^53
is one line naming its place (it overflowed a plot: views.py:152, and its siblings in the
timelines), in `report` and `merge`; a bare NaN or Infinity figure (an older ckviz wrote them,
a hand can) is drawn as not a number, never a traceback."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from ckviz.report import plots
from ckviz.report.sources import load_sources
from ckviz.report.views import scenario_views
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz_here
from tests.report.handmade import SEEDS
from tests.report.handmade import results as handmade_results
from tests.report.handmade import run as handmade_run

HUGE = 10**400


@pytest.fixture(scope="module")
def results(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real --headless run's results (in this process, on the session's server: the file's
    reading, not the run, is what these tests are about)."""
    out = tmp_path_factory.mktemp("skew") / "results.json"
    args = (
        "--scenario",
        "ck_skew",
        "--seeds",
        "seed-a",
        "--discipline",
        "baseline",
        "--discipline",
        "sfq",
    )
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    on_server = ("--jobs", "1", "--redis-url", redis_server.url, "--prefix", root)
    proc = ckviz_here("--headless", *args, *on_server, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    data: dict = json.loads(out.read_text())
    return data


def metrics(data: dict, run: int = 0) -> dict:
    found: dict = data["scenarios"][0]["runs"][run]["metrics"]
    return found


def written(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data))  # json writes NaN and Infinity bare
    return path


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    (line,) = stderr.strip().splitlines()
    return line


@pytest.mark.slow
@pytest.mark.parametrize(
    ("place", "where"),
    [
        (("makespan_ms",), "metrics.makespan_ms"),  # views.py:152
        (("total_dequeued",), "metrics.total_dequeued"),  # views.py:183
        (("timeline", "t_ms", 1), "metrics.timeline.t_ms.1"),  # matplotlib, numpy
        (("timeline", "series", 0, "served", 0), "timeline.series.0.served.0"),
    ],
)
def test_an_integer_past_2_53_is_one_line_naming_its_place(
    results: dict, tmp_path: Path, place: tuple[str | int, ...], where: str
) -> None:
    data = json.loads(json.dumps(results))
    parent = metrics(data)
    for step in place[:-1]:
        parent = parent[step]
    parent[place[-1]] = HUGE
    path = written(tmp_path, data)
    proc = ckviz_here("report", str(path), "--out", str(tmp_path / "r.html"))
    line = one_line(proc.stderr)
    assert proc.returncode == 2 and not (tmp_path / "r.html").exists()
    assert line.startswith(f"ckviz: error: {path}: not a ckviz results file: scenarios.0.runs.0.")
    assert f"{where}: an integer of 401 digits, past 2^53" in line
    proc = ckviz_here("merge", str(path), "--out", str(tmp_path / "m.json"))
    assert proc.returncode == 2 and f"{where}: an integer of 401 digits" in one_line(proc.stderr)


@pytest.mark.slow
def test_an_integer_within_2_53_still_reads(results: dict, tmp_path: Path) -> None:
    data = json.loads(json.dumps(results))
    metrics(data)["makespan_ms"] = 2**53 - 1
    proc = ckviz_here("report", str(written(tmp_path, data)), "--out", str(tmp_path / "r.html"))
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_an_attainment_that_is_not_a_number_is_drawn_as_such(
    results: dict, tmp_path: Path, value: float
) -> None:
    data = json.loads(json.dumps(results))
    for run in (0, 1):
        metrics(data, run)["per_key"]["fair_share_attainment"][0] = value
        metrics(data, run)["most_underserved_attainment"] = value
    path = written(tmp_path, data)
    assert ("NaN" if value != value else "Infinity") in path.read_text()
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    with warnings.catch_warnings(record=True) as said:  # a user's stderr would show them
        warnings.simplefilter("always")
        proc = ckviz_here("report", str(path), "--out", str(html), "--markdown", str(md), "--quiet")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert [str(w.message) for w in said] == []
    shown = "nan" if value != value else "inf"
    assert re.search(rf"\b{shown}\b", md.read_text())  # as a figure, not a word part
    assert 'data-figure="attainment"' in html.read_text()


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_key_whose_attainment_is_not_a_number_gets_no_bar_but_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: float
) -> None:
    runs = [handmade_run(label, seed, 20.0) for label in ("baseline", "sfq") for seed in SEEDS]
    for r in runs:
        r.metrics.per_key[0].fair_share_attainment = value
        r.metrics.per_key[1].fair_share_attainment = 0.5
    path = tmp_path / "r.json"
    path.write_text(json.dumps(handmade_results(runs).model_dump(mode="python")))  # bare
    (view,) = scenario_views(load_sources([str(path)]))
    figures: list[Figure] = []
    svg = plots.to_svg
    monkeypatch.setattr(plots, "to_svg", lambda fig: figures.append(fig) or svg(fig))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        plots.attainment_svg(view)  # a bar an infinity wide warned on stderr as it was drawn
    assert [str(w.message) for w in said] == []
    (fig,) = figures
    shown = "nan" if value != value else "inf"
    for ax in (ax for ax in fig.axes if ax.get_visible()):
        widths = [bar.get_width() for bar in ax.patches]
        assert widths == [0.5]  # the light key's bar; none for the heavy key's
        assert [t.get_text().strip() for t in ax.texts] == [shown]  # where its bar would be
