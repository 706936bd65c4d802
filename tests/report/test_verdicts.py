"""Verdicts claim only what their intervals show, starvation comes first, duplicates keep their mark."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.fairness_intervals import RESAMPLES, paired_difference
from ckviz.model.results import RunResult
from ckviz.report.findings import findings
from ckviz.report.markdown import render_markdown
from ckviz.report.sources import load_sources
from ckviz.report.verdicts import verdicts
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


def test_a_claim_needs_an_interval_clear_of_zero_and_the_minimum_effect() -> None:
    sure = paired_difference({"a": 0.9, "b": 0.5, "c": 0.7}, {"a": 0.8, "b": 0.4, "c": 0.6}, {}, {})
    assert sure is not None and sure.basis == "seeds" and sure.seeds == 3
    assert sure.low == pytest.approx(0.1) and sure.claim() == "fairer"
    assert sure.claim(min_effect=0.2) is None  # clear of 0, but smaller than the effect asked
    torn = paired_difference({"a": 0.9, "b": 0.3}, {"a": 0.8, "b": 0.4}, {}, {})
    assert torn is not None and torn.low is not None and torn.low < 0 and torn.claim() is None
    worse = paired_difference({"a": 0.2, "b": 0.25}, {"a": 0.8, "b": 0.85}, {}, {})
    assert worse is not None and worse.claim() == "less fair"
    assert paired_difference({"x": 0.9}, {"y": 0.2}, {}, {}) is None  # no seed in common


def test_one_sample_takes_its_interval_from_the_runs_own_resamples() -> None:
    mine = [0.9 + i / 1000 for i in range(RESAMPLES)]
    theirs = [0.5 + i / 2000 for i in range(RESAMPLES)]
    d = paired_difference({"a": 0.95}, {"a": 0.55}, {"a": mine}, {"a": theirs})
    assert d is not None and d.basis == "one sample" and d.seeds == 1
    assert d.estimate == pytest.approx(0.4) and d.claim() == "fairer"
    # seeds whose runs are alike (a trace) are one sample too, not a spread of zero width
    same = paired_difference({"a": 0.95, "b": 0.95}, {"a": 0.55, "b": 0.55}, {}, {})
    assert same is not None and same.basis == "one sample" and same.low is None
    assert same.claim() is None  # no interval kept (an older file): no claim


def test_the_verdict_names_who_is_fairer_with_its_interval(tmp_path: Path) -> None:
    runs = []
    for i, seed in enumerate(SEEDS):
        runs.append(fair("baseline", seed, 0.2 + i / 100, 1300.0))
        runs.append(fair("sfq", seed, 0.9 + i / 100, 14.0))
        runs.append(fair("drr", seed, 0.15 + i * 0.8, 20.0))  # 0.15 then 0.95: seeds disagree
    (line,) = verdicts(view_of(tmp_path, runs))
    assert line.startswith("Verdict: sfq is fairer than baseline: its most under-served key ")
    assert "gets 0.91 ± 0.06 of its fair share, baseline's 0.21 ± 0.06" in line
    assert "difference +0.70, 95% interval +0.70..+0.70, paired over 2 seeds" in line
    assert "drr (difference" not in line and "fairer than baseline: drr" not in line  # spans 0
    assert line.endswith("no treatment starved a key.")


def test_the_minimum_effect_is_the_users_to_set(tmp_path: Path) -> None:
    runs = []
    for i, seed in enumerate(SEEDS):
        runs.append(fair("baseline", seed, 0.80 + i / 100, 1.6))
        runs.append(fair("sfq", seed, 0.83 + i / 100, 1.6))  # +0.03 on every seed
    path = write(tmp_path / "r.json", results(runs))
    (strict,) = scenario_views(load_sources([str(path)]))
    assert verdicts(strict)[0].startswith("Verdict: no difference shown")
    (lenient,) = scenario_views(load_sources([str(path)]), min_effect=0.02)
    assert verdicts(lenient)[0].startswith("Verdict: sfq is fairer than baseline")


def test_a_lead_without_a_clear_interval_is_no_difference_shown(tmp_path: Path) -> None:
    runs = []
    for i, seed in enumerate(SEEDS):
        runs.append(fair("baseline", seed, [0.5, 0.7][i], 1.6))
        runs.append(fair("vtime-v17", seed, [0.8, 0.6][i], [1.1, 1.7][i]))
    scenario = view_of(tmp_path, runs)
    (line,) = verdicts(scenario)
    assert line.startswith("Verdict: no difference shown: baseline's most under-served key")
    assert "the largest: vtime-v17 (difference +0.10, 95% interval" in line
    assert "fairer" not in line and "spread" not in line
    # the headline wait: lower on average, but not on every seed: not called a cut
    said = findings(scenario)
    assert not any("cuts light's mean wait from" in s for s in said)
    assert said[1].startswith(  # after the consistent bias: light lowest on every seed
        "No cut of light's mean wait is shown: vtime-v17's 1.4 ms against baseline's 1.6 ms "
        "(difference -0.2 ms, 95% interval"
    )


def test_one_seed_says_one_sample_and_never_spread(tmp_path: Path) -> None:
    runs = [fair("baseline", "seed-a", 0.5, 1.6), fair("sfq", "seed-a", 0.9, 1.0)]
    scenario = view_of(tmp_path, runs)
    (line,) = verdicts(scenario)
    assert line.startswith("Verdict: one sample (seed seed-a): no difference shown")
    assert "one sample, no interval" in line  # a hand-made file keeps no resamples
    text = " ".join([line, *findings(scenario)])
    assert "spread" not in text and "over 1 seeds" not in text


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


def test_the_verdict_and_findings_name_who_gained_beside_who_lost(tmp_path: Path) -> None:
    runs = []
    for seed in SEEDS:
        for label, flood in (("baseline", 15.2), ("sfq", 1.1)):
            r = fair(label, seed, 0.71 if label == "baseline" else 0.95, 14.0)
            r.metrics.per_key[0].fair_share_attainment = flood  # heavy
            r.metrics.per_key[1].fair_share_attainment = r.metrics.most_underserved_attainment
            runs.append(r)
    scenario = view_of(tmp_path, runs)
    (line,) = verdicts(scenario)
    assert "under baseline (seed-a), heavy got 15.2x its fair share, light got 0.71" in line
    said = [s for s in findings(scenario) if s.startswith("Who gained: ")]
    assert said == [
        "Who gained: under baseline (seed-a), heavy got 15.2x its fair share, light got 0.71; "
        "under sfq (seed-a), heavy got 1.1x its fair share, light got 0.95."
    ]


def test_a_key_worst_served_on_every_seed_is_a_consistent_bias(tmp_path: Path) -> None:
    runs = []
    for i, seed in enumerate(SEEDS):
        runs.append(fair("vtime", seed, 0.80 + i / 100, 1.0))  # light: lowest on every seed
        runs.append(fair("sfq", seed, 0.95 - i / 100, 1.0))
        runs[-1].metrics.most_underserved_key = ["light", "heavy"][i]  # changes with the seed
        for r in runs[-2:]:
            r.metrics.per_key[1].fair_share_attainment = r.metrics.most_underserved_attainment
    scenario = view_of(tmp_path, runs)
    (line,) = verdicts(scenario)
    assert "consistent bias: vtime against light on every seed" in line
    assert "sfq against" not in line
    (said,) = [s for s in findings(scenario) if s.startswith("Consistent bias")]
    assert said.startswith(
        "Consistent bias (not the seeds' luck): under vtime, light is the most under-served "
        "key on every seed (2)"
    )
    assert "(vtime picks by: " in said and "ties by name" in said  # the discipline's rule
    one = view_of(tmp_path, [r for r in runs if r.seed == SEEDS[0]])  # one seed: no bias
    assert not any(s.startswith("Consistent bias") for s in findings(one))
