"""The README's two commands in order: `ckviz --headless` leaves a results.json in the folder
it ran in, and `pytest` run from that folder must not notice (tests never depend on the
checkout's working files: each starts in an empty folder of its own, tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_a_test_starts_in_an_empty_folder_of_its_own() -> None:
    cwd = Path.cwd().resolve()
    assert ROOT not in (cwd, *cwd.parents)
    assert list(cwd.iterdir()) == []


@pytest.mark.slow
def test_a_results_file_where_pytest_starts_changes_no_test(tmp_path: Path) -> None:
    """As after `uv run --no-dev ckviz --headless` then `uv run pytest` in one checkout: the
    test that tripped on the first command's results.json, run from a folder holding one."""
    (tmp_path / "results.json").write_text("{}", encoding="utf-8")
    test = ROOT / "tests" / "functional" / "test_bad_input.py"
    # one process (-n0): the three workers of the suite's own options start for one test
    pytest = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-n0",
        "-p",
        "no:cacheprovider",
        f"--rootdir={ROOT}",
    ]
    test_bad_flags = [f"{test}::test_bad_flags", "-k", "prefix"]
    proc = subprocess.run(
        [*pytest, *test_bad_flags], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "1 passed" in proc.stdout
    assert (tmp_path / "results.json").read_text(encoding="utf-8") == "{}"
