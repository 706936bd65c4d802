"""`ckviz report base.json head.json` as a CI gate: refuse what is not comparable, show each
figure's change, fail when a fairness figure or the light key's wait got worse."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.model.results import Results, RunResult
from ckviz.report.compare import change_pct, pct_text
from tests.functional.cli_support import ckviz_here as ckviz
from tests.report.handmade import SEEDS, results, run, write


def runs(attainment: float = 0.9, light: float = 14.0, seeds: list[str] = SEEDS) -> list[RunResult]:
    out = []
    for seed in seeds:
        for label, a, w in (("baseline", 0.2, 1300.0), ("sfq", attainment, light)):
            out.append(run(label, seed, w, most_underserved_key="light",
                           most_underserved_attainment=a, starved_keys=[]))  # fmt: skip
    return out


def files(tmp_path: Path, base: Results, head: Results) -> tuple[str, str]:
    return str(write(tmp_path / "base.json", base)), str(write(tmp_path / "head.json", head))


def test_changes_in_percent() -> None:
    assert change_pct(0.5, 0.25) == -50.0 and pct_text(0.5, 0.25) == "-50.0%"
    assert pct_text(2.0, 2.0) == "±0%" and pct_text(0.0, 3.0) == "new"


@pytest.mark.slow
def test_files_of_different_seeds_are_refused_naming_the_difference(tmp_path: Path) -> None:
    other = results(runs(seeds=["seed-x", "seed-y"]))
    other.matrix.seeds = ["seed-x", "seed-y"]
    base, head = files(tmp_path, results(runs()), other)
    html = tmp_path / "r.html"
    proc = ckviz("report", base, head, "--out", str(html))
    assert proc.returncode == 2 and not html.exists()
    (line,) = proc.stderr.strip().splitlines()
    assert "seeds: seed-a,seed-b in base, seed-x,seed-y in head" in line
    assert "--allow-mismatch" in line
    proc = ckviz("report", base, head, "--out", str(html), "--allow-mismatch")
    assert proc.returncode == 0, proc.stderr
    assert "Compared despite running different things (--allow-mismatch)" in html.read_text()


def test_different_scenario_contents_are_refused(tmp_path: Path) -> None:
    a, b = results(runs()), results(runs())
    a.scenarios[0].digest, b.scenarios[0].digest = "aaaa", "bbbb"
    proc = ckviz("report", *files(tmp_path, a, b), "--out", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and "scenario ck_handmade: its contents" in proc.stderr


@pytest.mark.slow
def test_fail_if_worse_gates_on_fairness_and_the_light_wait(tmp_path: Path) -> None:
    md = tmp_path / "r.md"
    same = files(tmp_path, results(runs()), results(runs()))
    proc = ckviz("report", *same, "--markdown", str(md), "--force", "--fail-if-worse", "5")
    assert proc.returncode == 0, proc.stderr
    assert "no figure got worse by more" in proc.stderr
    # sfq's most under-served key drops from 0.9 to 0.6 of its fair share: -33%
    worse = files(tmp_path, results(runs()), results(runs(attainment=0.6)))
    proc = ckviz("report", *worse, "--markdown", str(md), "--force", "--fail-if-worse", "5")
    assert proc.returncode == 1
    assert "ck_handmade/sfq: fair-share attainment 0.9 -> 0.6 (-33.3%;" in proc.stderr
    assert "| sfq | head | 0.600 (one sample) (-33.3%) |" in md.read_text()
    # a 10% longer light-key wait passes a 20% gate and fails a 5% one
    slower = files(tmp_path, results(runs()), results(runs(light=15.4)))
    assert (
        ckviz(
            "report", *slower, "--markdown", str(md), "--force", "--fail-if-worse", "20"
        ).returncode
        == 0
    )
    proc = ckviz("report", *slower, "--markdown", str(md), "--force", "--fail-if-worse", "5")
    assert proc.returncode == 1 and "light-key mean wait 14 -> 15.4 (+10.0%;" in proc.stderr


def test_fail_if_worse_wants_a_percentage(tmp_path: Path) -> None:
    base, head = files(tmp_path, results(runs()), results(runs()))
    proc = ckviz("report", base, head, "--fail-if-worse", "lots")
    assert proc.returncode == 2 and "not a number" in proc.stderr
