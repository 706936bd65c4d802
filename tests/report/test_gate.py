"""`ckviz report BASE HEAD --fail-if-worse [PCT]` as a CI gate that says it failed: first in
every output, as `::error` lines under GitHub Actions (with -q too), in the job summary; a
figure that is not a finite number fails; a label that changed meaning is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.model.results import Results
from tests.functional.cli_support import ckviz_here
from tests.report.handmade import results, write
from tests.report.test_compare import files, runs

ACTIONS = {"GITHUB_ACTIONS": "true"}


def with_nan(res: Results) -> Results:
    """Every gated figure of sfq not a number (as a file edited by hand or a broken run)."""
    for r in res.scenarios[0].runs:
        if r.treatment == "sfq":
            r.metrics.most_underserved_attainment = float("nan")
            r.metrics.contention_worst_share_over_weight = float("nan")
            r.metrics.contention_jain = float("nan")
            for k in r.metrics.per_key:
                k.mean_wait = float("nan")
    return res


def write_nan(path: Path, res: Results) -> str:
    """JSON's `NaN` token, as Python writes it (pydantic would write null, which is refused)."""
    path.write_text(json.dumps(res.model_dump(mode="python"), allow_nan=True), encoding="utf-8")
    return str(path)


def test_a_figure_that_is_not_a_number_fails_the_gate(tmp_path: Path) -> None:
    base = str(write(tmp_path / "base.json", results(runs())))
    head = write_nan(tmp_path / "head.json", with_nan(results(runs())))
    proc = ckviz_here("report", base, head, "--markdown", "-", "--fail-if-worse", "0")
    assert proc.returncode == 1, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith("ckviz: gate failed (--fail-if-worse 0%): ck_handmade/sfq")
    assert "not a finite number" in proc.stderr


@pytest.mark.slow
def test_the_failure_is_the_first_line_of_every_output(tmp_path: Path) -> None:
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    worse = files(tmp_path, results(runs()), results(runs(attainment=0.6)))
    proc = ckviz_here(
        "report", *worse, "--markdown", str(md), "--out", str(html), "--fail-if-worse"
    )
    assert proc.returncode == 1  # bare: 5%
    said = (
        "gate failed (--fail-if-worse 5%): ck_handmade/sfq: fair-share attainment 0.9 -> 0.6 "
        "(-33.3%; difference -0.30"
    )
    assert proc.stderr.splitlines()[0].startswith("ckviz: " + said)
    escaped = said.replace("_", "\\_").replace(">", "\\>")  # Markdown shows it as written
    assert md.read_text().splitlines()[0].startswith("**❌ ckviz " + escaped)
    body = html.read_text().split("<body>\n", 1)[1]
    assert body.startswith('<p class="failed" id="gate">❌ ckviz ' + said.replace(">", "&gt;"))


@pytest.mark.slow
def test_under_actions_the_gate_annotates_and_writes_the_job_summary_even_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = tmp_path / "job.md"
    job.write_text("earlier step\n", encoding="utf-8")
    for name, value in {**ACTIONS, "GITHUB_STEP_SUMMARY": str(job)}.items():
        monkeypatch.setenv(name, value)
    worse = files(tmp_path, results(runs()), results(runs(attainment=0.6)))
    out = str(tmp_path / "r.html")
    proc = ckviz_here("report", *worse, "--out", out, "--fail-if-worse", "5", "-q")
    assert proc.returncode == 1
    errors = [line for line in proc.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith(
        "::error title=ckviz gate failed%3A ck_handmade/sfq::ck_handmade/sfq: fair-share "
        "attainment 0.9 -> 0.6 (-33.3%25; difference -0.30"
    )
    summary = job.read_text(encoding="utf-8")
    assert summary.startswith("earlier step\n**❌ ckviz gate failed (--fail-if-worse 5%)")
    passed = files(tmp_path, results(runs()), results(runs()))
    proc = ckviz_here("report", *passed, "--out", out, "--force", "--fail-if-worse", "-q")
    assert proc.returncode == 0 and "::error" not in proc.stdout
    assert "**✅ ckviz gate passed (--fail-if-worse 5%)" in job.read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_label_that_means_another_treatment_is_refused(tmp_path: Path) -> None:
    head = results(runs())
    for r in head.scenarios[0].runs:
        if r.treatment == "sfq":
            r.discipline = "vtime"  # the same label, another discipline
    proc = ckviz_here("report", *files(tmp_path, results(runs()), head), "--fail-if-worse")
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "treatment sfq of ck_handmade: discipline sfq in base, vtime in head" in line
    capped = results(runs())
    for r in capped.scenarios[0].runs:
        if r.treatment == "sfq":
            r.per_key_cap = 2
    proc = ckviz_here("report", *files(tmp_path, results(runs()), capped), "--fail-if-worse")
    assert proc.returncode == 2 and "caps -/- in base, 2/- in head" in proc.stderr


def test_a_rule_can_gate_the_attainment_the_verdict_uses(tmp_path: Path) -> None:
    from ckviz.headless.checks import evaluate
    from ckviz.inputs import scenario_files
    from ckviz.model.scenario import Scenario

    path = tmp_path / "ck_handmade.toml"
    path.write_text(
        '[[keys]]\nname = "heavy"\nruns = 5\n[[keys]]\nname = "light"\nruns = 5\n'
        '[[expect]]\ndiscipline = "sfq"\nmetric = "most_underserved_attainment"\n'
        "at_least = 0.8\n"
        '[[expect]]\ndiscipline = "sfq"\nmetric = "most_underserved_attainment"\n'
        'better_than = "baseline"\nmargin = 1\n'
        '[[expect]]\ndiscipline = "baseline"\nmetric = "share_of_keys_below_0_9"\n'
        'no_worse_than = "sfq"\n',
        encoding="utf-8",
    )
    scenario = scenario_files.load_any(str(path))
    assert isinstance(scenario, Scenario)
    res = results(runs(attainment=0.9))
    for r in res.scenarios[0].runs:
        r.metrics.share_of_keys_below_0_9 = 0.5 if r.treatment == "baseline" else 0.0
    outcomes = evaluate([scenario], res.scenarios)
    assert [c.status for c in outcomes] == ["passed", "passed", "failed"]
    assert outcomes[0].detail == "0.9 vs bound 0.8"
    assert outcomes[1].detail == "0.9 vs baseline 0.2"  # 0.7 better, more than 1 x 0.2
