"""Stale temp folders: only a folder whose owners are known dead is removed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ckviz.store.workdirs import OWNERS_FILE, WORKDIR_PREFIX, remove_stale_workdirs, write_owners


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_folder_whose_owners_are_dead_is_removed_a_live_one_kept(temp_root: Path) -> None:
    dead, live = temp_root / f"{WORKDIR_PREFIX}dead", temp_root / f"{WORKDIR_PREFIX}live"
    dead.mkdir(), live.mkdir()
    (dead / OWNERS_FILE).write_text(f"{_dead_pid()} 1\n")
    write_owners(live, os.getpid())
    assert remove_stale_workdirs() == [dead]
    assert live.exists() and not dead.exists()


def test_an_owners_file_not_yet_written_is_not_taken_for_dead_owners(temp_root: Path) -> None:
    """Another ckviz sweeping while this one writes its owners must not remove its folder (a
    suite's workers start servers side by side: a redis.log vanished from under one)."""
    starting = temp_root / f"{WORKDIR_PREFIX}starting"
    starting.mkdir()
    (starting / OWNERS_FILE).write_text("")
    assert remove_stale_workdirs() == []
    assert starting.exists()


def test_the_owners_file_is_written_whole_with_no_partial_left(temp_root: Path) -> None:
    folder = temp_root / f"{WORKDIR_PREFIX}x"
    folder.mkdir()
    write_owners(folder, 1)
    assert sorted(p.name for p in folder.iterdir()) == [OWNERS_FILE]
