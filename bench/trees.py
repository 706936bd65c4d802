"""Another revision's ckviz for a benchmark to measure beside this tree's, in the same run."""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
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


def trees_to_measure(against: str | None, folder: Path) -> dict[str, Path]:
    """This tree, and REV's (exported into `folder`) if asked, each with its modules' bytecode
    written. A user's ckviz has it (an install compiles it; a checkout writes it on its first
    run), but this machine sets PYTHONDONTWRITEBYTECODE: a tree run as it is compiles its
    changed modules at every start (~25 ms for a checkout's day of edits) and an exported one
    all of them, which no user waits for and which differs between the trees."""
    trees = {"this tree": ROOT}
    if against:
        trees = {against: export_tree(against, folder), **trees}
    for tree in trees.values():
        compileall.compile_dir(tree / "ckviz", quiet=1)
    return trees


def env_of(tree: Path) -> dict[str, str]:
    """A child's environment that imports `tree`'s ckviz first (a script run in it; a
    `python -m ckviz` command also needs `ckviz_argv`)."""
    return {**os.environ, "PYTHONPATH": str(tree)}


def ckviz_argv(*args: str) -> list[str]:
    """`python -m ckviz ARGS` that imports ckviz from PYTHONPATH (`env_of`): `-m` puts the
    working folder first on the path, and run from a checkout that is the checkout's own
    ckviz, whatever PYTHONPATH says (so until this, every `--against` command run measured
    this tree twice). -P (Python 3.11+) leaves the working folder out."""
    return [sys.executable, "-P", "-m", "ckviz", *args]
