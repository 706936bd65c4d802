"""CI outputs of --headless: rule names checked up front, the checks summary line, JUnit XML,
the Markdown summary and GitHub's job summary."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ckviz.headless.junit import junit_xml
from ckviz.inputs import scenario_files
from ckviz.model.results import CheckResult
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, ckviz_here


def on(redis_server: RedisServer) -> tuple[str, ...]:
    """The session's server, under a root of the run's own: ckviz in this process starts none."""
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    return ("--redis-url", redis_server.url, "--prefix", root)


pytestmark = pytest.mark.slow

RULES = """
light_key = "light"
[[keys]]
name = "heavy"
runs = 40
arrival = "immediate"
[[keys]]
name = "light"
runs = 5
rate_per_sec = 20

[[expect]]
discipline = "sfq"
metric = "light_key_mean_wait"
better_than = "baseline"

[[expect]]
discipline = "baseline"
metric = "light_key_mean_wait"
better_than = "sfq"

[[expect]]  # a treatment of the caps matrix: skipped when that matrix is not run
discipline = "per-key-cap"
metric = "light_key_mean_wait"
no_better_than = "baseline"
"""
QUICK = ("--discipline", "baseline", "--discipline", "sfq", "--seeds", "seed-a")


def scenario(tmp_path: Path, text: str = RULES, name: str = "rules") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('discipline = "sfq"', 'discipline = "sfqq"', "expect[0].discipline"),
        ('better_than = "sfq"', 'better_than = "sfqq"', "expect[1].better_than"),
    ],
)
def test_a_rule_naming_nothing_that_exists_is_a_usage_error(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    path = scenario(tmp_path, RULES.replace(old, new, 1))
    out = tmp_path / "r.json"
    proc = ckviz_here("--headless", "--scenario", str(path), *QUICK, "--check", "--out", str(out))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"ckviz: error: {path}: {field}: no discipline or treatment 'sfqq'")
    assert not out.exists()  # refused before running
    proc = ckviz_here("validate", str(path))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [line.removeprefix("ckviz: error: ")]


def test_validate_passes_every_bundled_scenario() -> None:
    paths = [str(scenario_files.resolve(n)) for n in scenario_files.bundled_names()]
    proc = ckviz_here("validate", *paths)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(": ok") == len(paths)


def test_check_counts_skipped_rules_and_junit_lists_every_rule(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    path = scenario(tmp_path)
    junit, out = tmp_path / "junit.xml", tmp_path / "r.json"
    # --junit alone turns the rules on
    proc = ckviz_here(
        "--headless", "--scenario", str(path), *QUICK, *on(redis_server), "--junit", str(junit),
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # the second rule fails
    assert "checks: 1 passed, 1 failed, 1 skipped" in proc.stdout
    assert "::error" not in proc.stdout  # annotations only under GitHub Actions
    assert f"junit: {junit}" in proc.stderr
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("3", "1", "1")
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "rules"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "sfq light_key_mean_wait better_than baseline",
        "baseline light_key_mean_wait better_than sfq",
        "per-key-cap light_key_mean_wait no_better_than baseline",
    ]
    assert {c.get("classname") for c in cases} == {"ckviz.rules"}
    # each case's time: the wall seconds of the runs its rule compares (CI shows durations)
    times = [float(c.get("time") or "nan") for c in cases]
    assert times[0] > 0 and times[1] > 0 and times[2] >= 0
    assert float(suite.get("time") or "nan") == pytest.approx(sum(times), abs=0.002)
    assert cases[0].find("failure") is None and cases[0].find("skipped") is None
    failure = cases[1].find("failure")
    assert failure is not None and "vs sfq" in (failure.get("message") or "")
    skipped = cases[2].find("skipped")
    assert skipped is not None and "'per-key-cap' not in this run" in (skipped.get("message") or "")


def test_check_on_a_run_without_rules_says_so(redis_server: RedisServer, tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    proc = ckviz_here(
        "--headless",
        *on(redis_server),
        "--scenario",
        "ck_balanced",
        "--discipline",
        "sfq",
        "--seeds",
        "seed-a",
        "--check",
        "--junit",
        str(junit),
        "--out",
        str(tmp_path / "r.json"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "checks: no [[expect]] rules in the scenarios run" in proc.stdout
    root = ET.parse(junit).getroot()
    assert root.get("tests") == "0" and root.findall("testsuite") == []


def test_summary_markdown_is_written_and_appended_to_the_job_summary(tmp_path: Path) -> None:
    path = scenario(tmp_path)
    md, job = tmp_path / "summary.md", tmp_path / "job-summary.md"
    job.write_text("earlier step\n", encoding="utf-8")
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(job), "GITHUB_ACTIONS": "true"}
    proc = ckviz(
        "--headless",
        "--scenario",
        str(path),
        *QUICK,
        "--check",
        "--summary-md",
        str(md),
        "--out",
        str(tmp_path / "r.json"),
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    # under GitHub Actions a failed rule is also an annotation on the run's page and the PR
    (error,) = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert error.startswith(
        "::error title=ckviz check failed%3A rules::"
        "rules: baseline light_key_mean_wait better_than sfq ("
    )
    text = md.read_text(encoding="utf-8")
    first = text.splitlines()[:3]
    assert first[0] == "**❌ ckviz --check (r): 1 of 3 rules failed**"
    assert first[2].startswith(
        "- FAILED rules: baseline light\\_key\\_mean\\_wait better\\_than sfq"
    )
    assert "## ckviz report" in text and "### rules" in text
    assert "one sample: no interval for waits, so not a claim" in text  # one seed
    assert "| FAILED | rules | baseline light\\_key\\_mean\\_wait better\\_than sfq |" in text
    assert job.read_text(encoding="utf-8") == "earlier step\n" + text
    assert "summary: appended to GITHUB_STEP_SUMMARY" in proc.stderr
    # --quiet prints no table, yet the failed rule still annotates the run
    out = str(tmp_path / "quiet.json")
    proc = ckviz(
        "--headless", "--scenario", str(path), *QUICK, "--check", "-q", "--out", out, env=env
    )
    assert proc.returncode == 1, proc.stderr
    assert [line for line in proc.stderr.splitlines() if line.startswith("::error")] == [error]


def test_output_paths_are_checked_before_running(tmp_path: Path) -> None:
    for flag in ("--junit", "--summary-md"):
        proc = ckviz_here(
            "--headless",
            "--scenario",
            "ck_skew",
            flag,
            str(tmp_path),
            "--out",
            str(tmp_path / "r.json"),
        )
        assert proc.returncode == 2 and f"{flag}: {tmp_path} is a directory" in proc.stderr
        assert not (tmp_path / "r.json").exists()


def test_junit_xml_survives_names_xml_cannot_hold() -> None:
    checks = [
        CheckResult(scenario="s\x01<&>", rule='a "rule" \x1b', status="failed", detail="x\x00y")
    ]
    root = ET.fromstring(junit_xml(checks))
    case = root.find("testsuite/testcase")
    assert case is not None and case.get("name") == 'a "rule" \ufffd'
    assert root.find("testsuite").get("name") == "s\ufffd<&>"  # type: ignore[union-attr]


def test_the_markdown_summary_does_not_load_matplotlib() -> None:
    code = "import sys, ckviz.report.markdown, ckviz.headless.ci_outputs; print('matplotlib' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr
