"""Verdicts respect the spread over seeds, starvation comes first, duplicates keep their mark."""

from __future__ import annotations

from pathlib import Path

from ckviz.model.results import RunResult
from ckviz.report.findings import findings
from ckviz.report.markdown import render_markdown
from ckviz.report.sources import load_sources
from ckviz.report.verdicts import clearly_better, verdicts
from ckviz.report.views import ScenarioView, scenario_views
from tests.report.handmade import SEEDS, results, run, write


def view_of(tmp_path: Path, runs: list[RunResult]) -> ScenarioView:
    path = write(tmp_path / "r.json", results(runs))
    (scenario,) = scenario_views(load_sources([str(path)]))
    return scenario


def fair(label: str, seed: str, attainment: float, light: float, **extra: object) -> RunResult:
    return run(
        label,
        seed,
        light,
        most_underserved_key="light",
        most_underserved_attainment=attainment,
        starved_keys=[],
        **extra,
    )


def test_better_means_every_seed_agrees_or_the_ranges_part() -> None:
    assert clearly_better({"a": 0.9, "b": 0.5}, {"a": 0.8, "b": 0.4}, higher=True)  # paired
    assert not clearly_better({"a": 0.9, "b": 0.3}, {"a": 0.8, "b": 0.4}, higher=True)
    assert clearly_better({"x": 0.9}, {"y": 0.2, "z": 0.3}, higher=True)  # no common seed
    assert not clearly_better({"x": 0.9, "w": 0.1}, {"y": 0.2}, higher=True)  # ranges overlap
    assert clearly_better({"a": 10.0}, {"a": 20.0}, higher=False)
    assert not clearly_better({}, {"a": 1.0}, higher=True)


def test_the_verdict_names_the_fairest_and_who_beats_the_baseline(tmp_path: Path) -> None:
    runs = []
    for i, seed in enumerate(SEEDS):
        runs.append(fair("baseline", seed, 0.2 + i / 100, 1300.0))
        runs.append(fair("sfq", seed, 0.9 + i / 100, 14.0))
        runs.append(fair("drr", seed, 0.15 + i * 0.8, 20.0))  # 0.15 then 0.95: seeds disagree
    (line,) = verdicts(view_of(tmp_path, runs))
    assert line.startswith("Verdict: sfq is the fairest: its most under-served key gets 0.91")
    assert "baseline's 0.21" in line  # mean of 0.20, 0.21
    assert "fairer than baseline beyond the seeds' spread: sfq;" in line  # not drr
    assert line.endswith("no treatment starved a key.")


def test_a_lead_within_the_spread_is_said_to_be(tmp_path: Path) -> None:
    runs = []
    for i, seed in enumerate(SEEDS):
        runs.append(fair("baseline", seed, [0.5, 0.7][i], 1.6))
        runs.append(fair("vtime-v17", seed, [0.8, 0.6][i], [1.1, 1.7][i]))
    scenario = view_of(tmp_path, runs)
    (line,) = verdicts(scenario)
    assert "vtime-v17 is the fairest" in line and "within the seeds' spread of baseline" in line
    # the headline wait: lower on average, but not on every seed: not called a cut
    said = findings(scenario)
    assert not any("cuts light's mean wait from" in s for s in said)
    assert said[0] == (
        "No discipline cuts light's mean wait beyond the seeds' spread: vtime-v17's 1.4 ms "
        "against baseline's 1.6 ms is within it."
    )


def test_starvation_on_any_seed_is_the_first_finding(tmp_path: Path) -> None:
    runs = []
    for seed in SEEDS:
        runs.append(fair("baseline", seed, 0.2, 1300.0))
        starved = ["light"] if seed == "seed-b" else []
        runs.append(fair("sfq", seed, 0.9, 14.0).model_copy(deep=True))
        runs[-1].metrics.starved_keys = starved
    scenario = view_of(tmp_path, runs)
    assert findings(scenario)[0].startswith("Starvation: sfq starved light on seed-b")
    assert verdicts(scenario)[0].endswith("sfq starved light on seed-b.")


def test_a_duplicate_row_keeps_its_mark_in_the_report(tmp_path: Path) -> None:
    runs = []
    for seed in SEEDS:
        runs.append(fair("sfq", seed, 0.9, 14.0))
        runs.append(fair("stride", seed, 0.9, 14.0))
    path = write(tmp_path / "r.json", results(runs))
    md = render_markdown(load_sources([str(path)]))
    assert "| stride (= sfq) |" in md and "| sfq |" in md


def test_files_from_before_the_demand_aware_figures_say_so(tmp_path: Path) -> None:
    runs = [run("baseline", seed, 1300.0) for seed in SEEDS]
    (line,) = verdicts(view_of(tmp_path, runs))
    assert line.startswith("Verdict: no demand-aware figures in these results")
