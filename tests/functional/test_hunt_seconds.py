"""`ckviz hunt --seconds S` bounds the whole command (issue 20 item 14): exploring, shrinking
and the comparison table, with progress on stderr; a non-number is refused; a budget too
small to try anything says so and exits 1. Its --out is checked before the search (item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ckviz.commands.hunt as hunt_command
import ckviz.hunt.search as hunt_search
from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.trust_support import refused_here, run_ckviz, stderr_lines

pytestmark = pytest.mark.slow

HUNT = ("hunt", "--discipline", "baseline", "--keys", "4")


class Ticks:
    """The hunt's clock, faked: each look at it is half a second after the last, so --seconds
    runs out after a known number of looks however fast the machine is; the looks are kept."""

    def __init__(self) -> None:
        self.looks: list[float] = []

    def monotonic(self) -> float:
        self.looks.append(0.5 * (len(self.looks) + 1))
        return self.looks[-1]


def test_the_whole_hunt_keeps_to_its_seconds(
    redis_server: RedisServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Ticks()
    monkeypatch.setattr(hunt_command, "time", clock)
    monkeypatch.setattr(hunt_search, "time", clock)
    out = tmp_path / "found.toml"
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    args = [*HUNT, "--seconds", "8", "--examples", "100000", "--out", str(out)]
    code = main([*args, "--redis-url", redis_server.url, "--prefix", root])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    # each phase stops at its first look past the deadline: exploring, shrinking, comparing
    past = [t for t in clock.looks if t > clock.looks[0] + 8]
    assert len(past) <= 3, (clock.looks, printed.err, printed.out)
    said = printed.err.splitlines()
    assert any(line.startswith("hunt: exploring: 1 workloads, ") for line in said), said
    assert any(line.startswith("hunt: shrinking the worst of ") for line in said), said
    assert any(line.startswith("hunt: comparing it under ") for line in said), said
    assert "(cut by --seconds: rerun with --examples " in printed.out
    assert out.is_file()


@pytest.mark.parametrize("seconds", ["nan", "inf", "-1", "0"])
def test_seconds_that_are_no_duration_are_refused(seconds: str, tmp_path: Path) -> None:
    proc = refused_here(*HUNT, "--seconds", seconds, "--out", str(tmp_path / "f.toml"))
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
    # after an hour's search the wait for it would end first (TimeoutExpired), not the hunt
    proc = run_ckviz(*HUNT, "--seconds", "3600", "--out", out, timeout=120)
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert line.startswith("ckviz: error: --out: "), line
