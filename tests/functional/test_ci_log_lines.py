"""What ckviz prints to a GitHub Actions log (issue 35 items 3 and 5): keys, scenario names
and paths that look like workflow commands are neutralised in every line of `--headless`,
`--check`, `validate` and `report`, ckviz's own `::error` lines still act; and a key that the
stream's encoding cannot show is escaped, not a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.functional.cli_support import ckviz

HOSTILE = """
light_key = "::error::light"
[[keys]]
name = "##[error]heavy"
runs = 30
arrival = "immediate"
[[keys]]
name = "::error::light"
runs = 5
rate_per_sec = 20

[[expect]]
discipline = "baseline"
metric = "light_key_mean_wait"
better_than = "sfq"
"""
QUICK = ("--discipline", "baseline", "--discipline", "sfq", "--seeds", "seed-a")


def acting(output: str) -> list[str]:
    """Lines the runner would act on that ckviz did not write as its own."""
    return [
        line
        for line in output.split("\n")
        if ("##[" in line or line.lstrip().startswith("::"))
        and not line.startswith("::error title=ckviz check failed")
    ]


def actions_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CKVIZ_", "GITHUB_"))}
    return {**env, "GITHUB_ACTIONS": "true", **extra}


@pytest.mark.slow
def test_names_that_look_like_workflow_commands_are_inert_in_the_log(tmp_path: Path) -> None:
    folder = tmp_path / "##[group]x"
    folder.mkdir()
    path = folder / "hostile.toml"
    path.write_text(HOSTILE, "utf-8")
    out, env = folder / "r.json", actions_env()
    run = ckviz(
        "--headless", "--scenario", str(path), *QUICK, "--check", "--out", str(out), env=env
    )
    assert run.returncode == 1, run.stderr  # the rule fails: ckviz's own ::error line
    own = [line for line in run.stdout.split("\n") if line.startswith("::error title=")]
    assert len(own) == 1 and "##[" not in own[0], run.stdout
    assert "heavy" in run.stdout and "light" in run.stdout
    for proc in (
        run,
        ckviz("validate", str(path), env=env),
        ckviz("report", str(out), "--out", str(tmp_path / "r.html"), env=env),
        ckviz("report", str(out), "--markdown", "-", env=env),
    ):
        assert "Traceback" not in proc.stderr, proc.stderr
        assert acting(proc.stdout) == [] and acting(proc.stderr) == [], proc.stdout + proc.stderr


@pytest.mark.slow
def test_a_key_the_terminal_cannot_encode_is_escaped_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "cafe.toml"
    path.write_text(
        '[[keys]]\nname = "café-☕"\nruns = 5\narrival = "immediate"\n'
        '[[keys]]\nname = "b"\nruns = 5\narrival = "immediate"\n',
        "utf-8",
    )
    env = {**actions_env(), "GITHUB_ACTIONS": "", "PYTHONIOENCODING": "ascii"}
    proc = ckviz(
        "--headless", "--scenario", str(path), *QUICK, "--out", str(tmp_path / "r.json"), env=env
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "caf\\xe9-\\u2615" in proc.stdout, proc.stdout
