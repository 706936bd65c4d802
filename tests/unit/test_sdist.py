"""The source distribution holds the project's files and nothing a checkout's runs leave
beside them (issue 35 item 15: the sdist shipped the tour's 3.5 MB report and its casts)."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("ckviz/", "scenarios/", "schemas/", "tests/", "docs/", "bench/", "scripts/")
JUNK = ("report.html", "demo.cast", "my-run.json", "notes/big.cast", "dist/old.tar.gz")
TOP_FILES = {"README.md", "pyproject.toml", "uv.lock", "mkdocs.yml", "PKG-INFO", ".gitignore"}


def tracked_copy(folder: Path) -> Path:
    """The checkout's tracked files copied to `folder` (never building in the checkout)."""
    names = (
        subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, names):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


@pytest.mark.slow
def test_the_sdist_ships_the_allow_list_only(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    assert uv, "uv is needed to build the sdist"
    project = tracked_copy(tmp_path / "project")
    # what the tour and a user's runs leave in a checkout, not all of it git-ignored
    for junk in JUNK:
        (project / junk).parent.mkdir(parents=True, exist_ok=True)
        (project / junk).write_text("x" * 1000)
    out = tmp_path / "dist"
    proc = subprocess.run(
        [uv, "build", "--sdist", "--out-dir", str(out), str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (sdist,) = out.glob("ckviz-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    files = [n for n in names if n and not any(n == p.rstrip("/") for p in SHIPPED)]
    stray = [n for n in files if not n.startswith(SHIPPED) and n not in TOP_FILES]
    assert stray == [], stray
    for needed in ("ckviz/__init__.py", "scenarios/ck_skew.toml", "README.md", "pyproject.toml"):
        assert needed in names, needed
    assert not set(JUNK) & set(names)
