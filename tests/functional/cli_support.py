"""ckviz as a user runs it, for the tests of its command line: in a subprocess (`ckviz`) or
in this process (`exits`), and results compared with their timing left out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ckviz.cli import main

TIMING = {"wall_clock_s", "wall_clock_ms"}


def ckviz(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`ckviz ARGS` in a subprocess, to its end, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "ckviz", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


def exits(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """What `ckviz ARGS` returns (or exits with, for --help and --version) and prints."""
    try:
        code = main(args)
    except SystemExit as stop:
        code = int(stop.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def without_timing(node: object) -> object:
    """A results file's JSON without the fields that time the run."""
    if isinstance(node, dict):
        return {k: without_timing(v) for k, v in node.items() if k not in TIMING}
    if isinstance(node, list):
        return [without_timing(v) for v in node]
    return node
