"""ckviz as a user runs it, for the tests of its command line: in a subprocess (`ckviz`) or
in this process (`ckviz_here`, `exits`), and results compared with their timing left out.

A subprocess costs an interpreter's start and ckviz's imports (a second or more on a loaded
machine); each command keeps at least one test in a real subprocess, and the tests of what a
command does with its arguments run it in this process."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from ckviz import errors
from ckviz.cli import main
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer

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


def as_a_new_process() -> None:
    """What ckviz keeps for its process's life, forgotten before a run in this one: the
    passwords of the URLs it was given, which it hides from all it prints (an earlier test's,
    the same one, would be hidden for a test that checks ckviz hides it)."""
    errors._SECRETS.clear()


def ckviz_here(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`ckviz ARGS` in this process: its exit code and what it printed, as `ckviz` gives them
    (the test's own empty folder is the working folder unless `cwd` names another)."""
    as_a_new_process()
    out, err = io.StringIO(), io.StringIO()
    folder = contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext()
    with folder, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as stop:  # --help, --version
            code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    return subprocess.CompletedProcess(["ckviz", *args], code, out.getvalue(), err.getvalue())


def exits(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """What `ckviz ARGS` returns (or exits with, for --help and --version) and prints."""
    as_a_new_process()
    try:
        code = main(args)
    except SystemExit as stop:
        code = int(stop.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def headless(redis_server: RedisServer, matrix: Path, out: Path, *more: str) -> int:
    """`ckviz --headless --matrix MATRIX` in this process, one job, under a root of its own."""
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    return main(
        [
            "--headless",
            "--matrix",
            str(matrix),
            "--jobs",
            "1",
            "--redis-url",
            redis_server.url,
            "--prefix",
            root,
            "--out",
            str(out),
            *more,
        ]
    )


def in_shards(redis_server: RedisServer, folder: Path, matrix_text: str, n: int = 2) -> list[Path]:
    """The matrix `matrix_text` run as `n` shards into `folder`: the parts' paths."""
    matrix = folder / "matrix.toml"
    matrix.write_text(matrix_text)
    parts = [folder / f"part{k}.json" for k in range(1, n + 1)]
    for k, part in enumerate(parts, start=1):
        assert headless(redis_server, matrix, part, "--shard", f"{k}/{n}") == 0
    return parts


def without_timing(node: object) -> object:
    """A results file's JSON without the fields that time the run."""
    if isinstance(node, dict):
        return {k: without_timing(v) for k, v in node.items() if k not in TIMING}
    if isinstance(node, list):
        return [without_timing(v) for v in node]
    return node
