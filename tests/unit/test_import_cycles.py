"""No two ckviz modules know each other, type-only imports included (issue: one engine)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ckviz

ROOT = Path(ckviz.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.Module, here: str, is_package: bool, known: set[str]) -> set[str]:
    """The ckviz modules `here` imports, a `from package import module` naming the module."""
    found: set[str] = set()
    package = here if is_package else here.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {name for name in found if name in known and name != here}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    known = {module_name(p) for p in paths}
    return {
        module_name(p): imported(
            ast.parse(p.read_text()), module_name(p), p.name == "__init__.py", known
        )
        for p in paths
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part: list[str] = []
            while (top := stack.pop()) != node:
                part.append(top)
            if part:
                found.append(sorted([node, *part]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_checker_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_relative_and_package_imports_are_resolved() -> None:
    tree = ast.parse("from . import b\nfrom .c import x\nimport ckviz.d\n")
    known = {"p", "p.a", "p.b", "p.c", "ckviz.d"}
    assert imported(tree, "p.a", False, known) == {"p.b", "p.c", "ckviz.d"}


@pytest.mark.slow
def test_no_module_of_ckviz_imports_one_that_imports_it_back() -> None:
    assert cycles(import_graph()) == []
