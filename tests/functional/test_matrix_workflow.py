"""The reusable workflow's scripts run (issue 35 item 14): its plan, two slices, the merge, the
report with the gate against a baseline, the job summary and the check, each step's `run` as
the workflow has it, under the environment the runner would give it (inputs filled in the way
GitHub fills `${{ inputs.* }}`), with the ckviz of this checkout."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ckviz.cli import main
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "ckviz-matrix.yml"
MATRIX = """
scenarios = ["micro_skew", "ck_trickle"]
seeds = ["seed-a"]
disciplines = ["baseline", "sfq"]
"""
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def filled(text: str, values: dict[str, str]) -> str:
    return EXPRESSION.sub(lambda m: values[m[1]], text)


def run_steps(job: dict, values: dict[str, str], env: dict[str, str], cwd: Path) -> None:
    """Each step of `job` with a script, in order, as the runner's `bash -e` runs it."""
    for step in job["steps"]:
        if "run" not in step:
            continue  # an action: checkout, setup-uv, the artifacts (the folder stands in)
        step_env = {k: filled(str(v), values) for k, v in step.get("env", {}).items()}
        proc = subprocess.run(
            ["bash", "-e", "-c", filled(step["run"], values)],
            cwd=cwd,
            env={**env, **step_env},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, (step.get("name"), proc.stdout, proc.stderr)


@pytest.mark.slow
def test_the_reusable_workflows_scripts_shard_merge_report_gate_and_check(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    flow = YAML(typ="safe").load(WORKFLOW.read_text(encoding="utf-8"))
    (tmp_path / "fairness").mkdir()
    (tmp_path / "fairness" / "matrix.toml").write_text(MATRIX)
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    baseline = tmp_path / "fairness" / "baseline.json"
    url = ["--redis-url", redis_server.url, "--prefix", root, "--jobs", "1", "-q"]
    assert main(["--headless", "--matrix", str(tmp_path / "fairness" / "matrix.toml"), *url,
                 "--out", str(baseline)]) == 0  # fmt: skip
    inputs = {
        "ckviz": "unused: the checkout's ckviz is on PATH",
        "matrix": "fairness/matrix.toml",
        "shards": "2",
        "headless-args": " ".join(url),
        "check": "true",
        "baseline": "fairness/baseline.json",
        "fail-if-worse": "10",
        "python-version": "3.12",
    }
    values = {f"inputs.{k}": v for k, v in inputs.items()} | {
        "github.run_attempt": "1",
        "steps.names.outputs.artifact": "ckviz-results-1",
        "!cancelled() && inputs.check": "true",
    }
    summary, output = tmp_path / "summary.md", tmp_path / "output"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env |= {k: filled(str(v), values) for k, v in flow["env"].items()}
    env |= {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)}
    jobs = flow["jobs"]
    jobs["slice"]["steps"] = [s for s in jobs["slice"]["steps"] if s.get("name") != "install ckviz"]
    jobs["merge"]["steps"] = [s for s in jobs["merge"]["steps"] if s.get("name") != "install ckviz"]

    run_steps(jobs["plan"], values, env, tmp_path)
    assert output.read_text() == "slices=[1,2]\n"
    for k in (1, 2):
        run_steps(jobs["slice"], values | {"matrix.k": str(k)}, env, tmp_path)
    assert not summary.exists()  # a slice writes no summary of its own
    run_steps(jobs["merge"], values, env, tmp_path)
    assert {"all.json", "report.html", "report.md"} <= {p.name for p in tmp_path.iterdir()}
    text = summary.read_text()
    assert "micro\\_skew" in text or "micro_skew" in text
