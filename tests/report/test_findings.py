"""Findings are read off the figures: change a figure in a results file, the sentence changes."""

from __future__ import annotations

from pathlib import Path

from ckviz.report.findings import findings
from ckviz.report.sources import load_sources
from ckviz.report.views import scenario_views
from tests.report.handmade import SEEDS, results, run, skew_like, write


def says(lines: list[str], start: str) -> bool:
    """Some line starts so (a cut goes on to give its interval)."""
    return any(line.startswith(start) for line in lines)


def lines_for(tmp_path: Path, runs: list, name: str = "r.json") -> list[str]:  # type: ignore[type-arg]
    path = write(tmp_path / name, results(runs))
    (scenario,) = scenario_views(load_sources([str(path)]))
    return findings(scenario)


def test_the_headline_wait_sentence_follows_the_light_keys_figures(tmp_path: Path) -> None:
    lines = lines_for(tmp_path, skew_like(sfq_light=14.0))
    assert says(lines, "sfq cuts light's mean wait from 1321 ms (baseline) to 14 ms (difference")
    assert "95% interval -1307 ms..-1307 ms, paired over 2 seeds" in lines[0]
    lines = lines_for(tmp_path, skew_like(sfq_light=20.0))
    assert says(lines, "sfq cuts light's mean wait from 1321 ms (baseline) to 20 ms (")
    lines = lines_for(tmp_path, skew_like(sfq_light=1300.0))
    assert not any("cuts light's" in line for line in lines if line.startswith("sfq"))
    assert (
        lines[0]
        == "No discipline cuts light's mean wait much below baseline's 1321 ms (lowest: sfq 1300 ms)."
    )


def test_a_cap_that_changes_nothing_is_said_to_do_nothing(tmp_path: Path) -> None:
    lines = lines_for(tmp_path, skew_like(cap_light=1300.0))
    assert (
        "per-key-cap does nothing for light's mean wait (1300 ms vs 1321 ms under baseline)."
        in lines
    )
    lines = lines_for(tmp_path, skew_like(cap_light=200.0, cap_makespan=2100))
    assert (
        "per-key-cap cuts light's mean wait from 1321 ms (baseline) to 200 ms, "
        "and stretches the makespan from 1000 ms to 2100 ms (x2.1)."
    ) in lines


def test_fairness_range_names_the_least_and_most_fair(tmp_path: Path) -> None:
    lines = lines_for(tmp_path, skew_like())
    assert lines[1].startswith(
        "Worst share/weight (1 = its fair share) runs from 0.180 (baseline) to 0.720 (sfq)"
    )


def test_identical_rows_are_named(tmp_path: Path) -> None:
    runs = skew_like() + [
        run("stride", seed, 13.5 + i, worst_share=0.72) for i, seed in enumerate(SEEDS)
    ]
    lines = lines_for(tmp_path, runs)
    assert "sfq and stride give identical figures (every mean, min and max over seeds)." in lines
    runs[-1] = run("stride", SEEDS[-1], 14.5, worst_share=0.73)  # one seed differs: not identical
    assert not any("identical" in line for line in lines_for(tmp_path, runs))


def test_two_files_say_what_moved(tmp_path: Path) -> None:
    for folder in ("main", "pr"):
        (tmp_path / folder).mkdir()
    a = write(tmp_path / "main" / "results.json", results(skew_like(sfq_light=14.0)))
    b = write(tmp_path / "pr" / "results.json", results(skew_like(sfq_light=20.0)))
    sources = load_sources([str(a), str(b)])
    assert [s.label for s in sources] == ["main/results", "pr/results"]
    (scenario,) = scenario_views(sources)
    lines = findings(scenario)
    assert says(lines, "main/results: sfq cuts light's mean wait from 1321 ms (baseline) to 14 ms")
    assert says(lines, "pr/results: sfq cuts light's mean wait from 1321 ms (baseline) to 20 ms")
    assert "main/results -> pr/results: sfq: light-key mean wait 14 ms -> 20 ms." in lines
    same = findings(scenario_views(load_sources([str(a), str(a)]))[0])
    assert same[-1] == "results -> results (2): no figure moved."
