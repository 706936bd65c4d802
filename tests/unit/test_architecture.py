"""docs/architecture.md stays true: its layer list is pyproject's import-linter layers, its
layout names every room, and its list of what a Redis-side discipline touches outside its
package is what the code's references to vtime (its modules, knobs and invariants) say."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CKVIZ = ROOT / "ckviz"
VTIME = CKVIZ / "disciplines" / "vtime"
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def between(marker: str) -> str:
    return ARCHITECTURE.split(f"<!-- {marker} -->\n")[1].split(f"<!-- /{marker.split(':')[0]}")[0]


def test_the_layer_list_is_import_linters() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = config["tool"]["importlinter"]["contracts"][0]
    assert contract["type"] == "layers" and "containers" not in contract
    layers = [layer.replace("ckviz.", "") for layer in contract["layers"]]
    documented = between("layers").strip().strip("`").strip().splitlines()
    assert documented == layers


def test_the_layout_names_every_room() -> None:
    layout = ARCHITECTURE.split("## Layout\n")[1].split("```text\n")[1].split("```")[0]
    folder, named = "", set()
    for line in layout.splitlines():
        for word in line.strip().split("  ")[0].split():
            if line.startswith("  "):
                named.add(folder + word)
            else:
                folder = word if word.endswith("/") else folder
                named.add(word)
    rooms = {f"{p.parent.relative_to(ROOT)}/" for p in CKVIZ.rglob("__init__.py")} - {"ckviz/"}
    modules = {f"ckviz/{p.name}" for p in CKVIZ.glob("*.py")} - {"ckviz/__init__.py"}
    assert sorted((rooms | modules) - named) == []


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr):
            found.add(id(node.body[0].value))
    return found


def _words(node: ast.AST, docstrings: set[int]) -> list[str]:
    """The names and the text a node gives the code (not a comment, not a docstring)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.alias):
        return [node.name, node.asname or ""]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [] if id(node) in docstrings else [node.value]
    return []


def names_vtime(path: Path) -> bool:
    """Whether the module refers to vtime: imports it, names it, its knobs (`VTIME_KNOBS`),
    its invariants (`vtime-*`), keys (`ckVtime`) or figures (`vtime_floor_final`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    return any("vtime" in w.lower() for node in ast.walk(tree) for w in _words(node, docstrings))


def test_what_a_redis_side_discipline_touches_is_what_the_code_says() -> None:
    derived = {
        str(path.relative_to(CKVIZ))
        for path in CKVIZ.rglob("*.py")
        if VTIME not in path.parents and names_vtime(path)
    }
    documented = set(re.findall(r"`((?!tests/)\w+/[\w/]+\.py)`", between("touches:vtime")))
    assert sorted(documented - derived) == [], "documented, but they do not name vtime"
    assert sorted(derived - documented) == [], "they name vtime: docs/architecture.md misses them"
