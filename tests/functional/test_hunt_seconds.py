"""`ckviz hunt --seconds S` bounds the whole command (issue 20 item 14): exploring, shrinking
and the comparison table, with progress on stderr; a non-number is refused; a budget too
small to try anything says so and exits 1. Its --out is checked before the search (item 8)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.sim.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.trust_support import run_ckviz, stderr_lines

HUNT = ("hunt", "--discipline", "baseline", "--keys", "4")


def test_the_whole_hunt_keeps_to_its_seconds(
    redis_server: RedisServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "found.toml"
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    args = [*HUNT, "--seconds", "8", "--examples", "100000", "--out", str(out)]
    started = time.monotonic()  # in this process: a loaded machine's interpreter start aside
    code = main([*args, "--redis-url", redis_server.url, "--prefix", root])
    took = time.monotonic() - started
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert took < 8 + 2, (took, printed.err, printed.out)  # one workload may run past the deadline
    said = printed.err.splitlines()
    assert any(line.startswith("hunt: exploring: 1 workloads, ") for line in said), said
    assert any(line.startswith("hunt: shrinking the worst of ") for line in said), said
    assert any(line.startswith("hunt: comparing it under ") for line in said), said
    assert "(cut by --seconds: rerun with --examples " in printed.out
    assert out.is_file()


@pytest.mark.parametrize("seconds", ["nan", "inf", "-1", "0"])
def test_seconds_that_are_no_duration_are_refused(seconds: str, tmp_path: Path) -> None:
    proc = run_ckviz(*HUNT, "--seconds", seconds, "--out", str(tmp_path / "f.toml"))
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert "--seconds" in line and seconds in line, line


def test_too_little_time_to_try_anything_says_so(tmp_path: Path) -> None:
    out = tmp_path / "f.toml"
    proc = run_ckviz(*HUNT, "--seconds", "0.001", "--out", str(out))
    assert proc.returncode == ExitCode.CHECK_FAILED
    (line,) = stderr_lines(proc)
    assert "no workload was tried within --seconds 0.001" in line, line
    assert not out.exists()


@pytest.mark.parametrize("where", ["dir", "/proc/found.toml"])
def test_an_unusable_out_is_refused_before_the_search(where: str, tmp_path: Path) -> None:
    out = str(tmp_path) if where == "dir" else where
    started = time.monotonic()
    proc = run_ckviz(*HUNT, "--seconds", "60", "--out", out)
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert line.startswith("ckviz: error: --out: "), line
    assert time.monotonic() - started < 30  # not after a 60 s search
