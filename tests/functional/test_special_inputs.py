"""What ckviz reads must be a regular file: a device, a FIFO or a symlink to one is refused
in one line (it was read until memory ran out, or blocked forever). A scenario's `[trace]
path` stays inside the scenario's folder unless --allow-trace-outside says otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ckviz.errors import ExitCode
from tests.functional.trust_support import refused_here, run_ckviz


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["device", "fifo"])
@pytest.mark.parametrize(
    ("command", "says"),
    [
        (lambda src, d: ("report", src, "--out", str(d / "r.html")), "cannot read: "),
        (lambda src, d: ("merge", src, "--out", str(d / "m.json")), "cannot read ("),
    ],
)
def test_a_results_input_that_is_no_regular_file_is_one_line(
    command,
    says: str,
    kind: str,
    fifo: Path,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    source = "/dev/zero" if kind == "device" else str(fifo)  # read, never written
    proc = run_ckviz(*command(source, tmp_path), timeout=30)
    assert proc.returncode == ExitCode.USAGE
    what = "a character device" if kind == "device" else "a FIFO"
    (line,) = proc.stderr.splitlines()
    assert (
        line.startswith(f"ckviz: error: {source}: {says}")
        and f"not a regular file ({what})" in line
    )


def scenario_with_trace(folder: Path, path: str) -> Path:
    scenario = folder / "s.toml"
    scenario.write_text(f'[trace]\npath = "{path}"\n')
    return scenario


@pytest.mark.slow
def test_a_trace_symlinked_to_a_device_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.csv").symlink_to("/dev/zero")
    scenario = scenario_with_trace(tmp_path, "t.csv")
    run = ("--headless", "--scenario", str(scenario), "--allow-trace-outside")
    for args in (run, ("validate", "--allow-trace-outside", str(scenario))):
        proc = run_ckviz(*args, timeout=30)
        assert proc.returncode == ExitCode.USAGE
        (line,) = proc.stderr.splitlines()
        assert line.endswith(
            f"{tmp_path}/t.csv: cannot read: not a regular file (a character device)"
        )


@pytest.mark.slow
@pytest.mark.parametrize("path", ["../../../../../../etc/passwd", "/etc/passwd", "link.csv"])
def test_a_trace_path_leading_outside_the_scenarios_folder_is_refused(
    tmp_path: Path, path: str
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "link.csv").symlink_to("/etc/passwd")
    scenario = scenario_with_trace(folder, path)
    for args in (("--headless", "--scenario", str(scenario)), ("validate", str(scenario))):
        proc = refused_here(*args)
        assert proc.returncode == ExitCode.USAGE
        (line,) = proc.stderr.splitlines()
        assert line.endswith(f"{scenario}: trace.path: '{path}' leads outside the scenario's "
                             "folder; put the trace beside the scenario, or pass "
                             "--allow-trace-outside")  # fmt: skip
        assert ":0:0:" not in proc.stderr  # nothing of the file is read, let alone quoted


@pytest.mark.slow
def test_a_trace_outside_is_read_with_the_flag(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("key,arrival_ms,hold_ms\na,0,10\nb,0,10\n")
    folder = tmp_path / "scenarios"
    folder.mkdir()
    scenario = scenario_with_trace(folder, "../t.csv")
    assert run_ckviz("validate", str(scenario)).returncode == ExitCode.USAGE
    proc = run_ckviz("validate", "--allow-trace-outside", str(scenario))
    assert proc.returncode == ExitCode.OK and proc.stdout == f"{scenario}: ok\n"
