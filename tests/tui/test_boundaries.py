"""Only ckviz/tui imports Textual, and nothing outside it imports the app."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ckviz"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_textual_is_imported_only_inside_the_tui() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "tui" in path.relative_to(PACKAGE).parts:
            continue
        modules = imported_modules(path)
        if any(m == "textual" or m.startswith("textual.") for m in modules):
            offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


def test_only_the_cli_reaches_into_the_tui() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if "tui" in relative.parts or relative == Path("cli.py"):
            continue
        if any(m.startswith("ckviz.tui") for m in imported_modules(path)):
            offenders.append(str(relative))
    assert offenders == []
