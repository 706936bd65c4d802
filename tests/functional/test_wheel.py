"""Bundled scenarios and Lua scripts ship inside the wheel and are found from an install."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.xdist_group("test_wheel"), pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = shutil.which("uv")
    assert uv, "uv is how the project is built and tested (see README)"
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(out), str(ROOT)], check=True, capture_output=True
    )
    (path,) = out.glob("ckviz-*.whl")
    return path


def test_wheel_contains_scenarios_matrices_and_scripts(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "ckviz/scenarios/ck_skew.toml",
        "ckviz/scenarios/matrices/caps.toml",
        "ckviz/scenarios/incident_trace.toml",
        "ckviz/scenarios/traces/incident.csv",
        "ckviz/store/lua/dequeue.lua",
        "ckviz/disciplines/vtime/lua/dequeue.lua",
        "ckviz/tui/ckviz.tcss",
    ):
        assert expected in names


def test_installed_wheel_finds_bundled_scenarios(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)  # a wheel is a zip laid out as site-packages
    code = (
        "from ckviz.inputs import scenario_files as s; import ckviz;"
        "print(ckviz.__file__); print(s.bundled_dir()); print(s.load('ck_sybil').total_runs);"
        "print(s.load_matrix('caps').scenarios)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    module, folder, runs, matrix = proc.stdout.strip().splitlines()
    assert module.startswith(str(target))
    assert folder == str(target / "ckviz" / "scenarios")
    assert runs == "320"
    assert "ck_heavy_idle" in matrix
