"""Costly runs several tests read, made once a session however many xdist workers ask.

The README's first command (the default matrix, ~10 s of CPU) was run by the tour, before its
`report` line, and again by the report picture's check: the same code, the same seeds, the
same results. The first test to ask runs it; a test on another worker asking meanwhile waits
on a file lock for that run rather than make a second."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.functional.cli_support import ckviz


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this session shares (and no other session): under xdist each
    worker's base temp folder sits in the session's."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def default_matrix_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results.json as `ckviz --headless` writes it in an empty folder, made once a session."""
    folder = session_folder(tmp_path_factory) / "readme-first-command"
    results = folder / "results.json"
    with open(folder.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not results.exists():
            folder.mkdir(exist_ok=True)
            proc = ckviz("--headless", cwd=folder, timeout=600)
            assert proc.returncode == 0, proc.stderr
    return results
