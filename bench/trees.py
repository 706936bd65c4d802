"""Another revision's ckviz for a benchmark to measure beside this tree's, in the same run."""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def export_tree(rev: str, into: Path) -> Path:
    """REV's files (git archive), for its ckviz to be imported from."""
    archive = into / "tree.tar"
    subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), rev], check=True
    )
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def env_of(tree: Path) -> dict[str, str]:
    """A child's environment that imports `tree`'s ckviz first."""
    return {**os.environ, "PYTHONPATH": str(tree)}
