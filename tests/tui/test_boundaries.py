"""Only ckviz/tui imports Textual, and nothing outside it imports the app."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.slow
def test_textual_is_imported_only_inside_the_tui() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "tui" in path.relative_to(PACKAGE).parts:
            continue
        modules = imported_modules(path)
        if any(m == "textual" or m.startswith("textual.") for m in modules):
            offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


APP_COMMANDS = {Path("commands/app.py"), Path("commands/serve.py")}  # the app, in a browser


def test_only_the_app_commands_reach_into_the_tui() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if "tui" in relative.parts or relative in APP_COMMANDS:
            continue
        if any(m.startswith("ckviz.tui") for m in imported_modules(path)):
            offenders.append(str(relative))
    assert offenders == []


@pytest.mark.slow
def test_the_engine_and_the_headless_path_load_no_textual() -> None:
    # a fresh interpreter: what this test process already imported does not count
    engine = sorted(
        "ckviz." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts)
        for folder in ("headless", "sim", "commands", "player")
        for p in (PACKAGE / folder).rglob("*.py")
        if p.name != "__init__.py"
    )
    # the app's player (frame sources, the tape, the moves) and the footer's choice of keys
    modules = ["ckviz.cli", "ckviz.tui.context", *engine]
    code = "\n".join(
        [
            "import importlib, sys",
            f"for name in {modules!r}: importlib.import_module(name)",
            "loaded = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))",
            "print(len(sys.modules)); print(loaded)",
        ]
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, loaded = done.stdout.splitlines()
    assert (
        int(count) > 50
        and "ckviz.headless.matrix" in engine
        and "ckviz.sim.millisecond_clock.driver" in engine
        and "ckviz.player.player" in engine
    )
    assert loaded == "[]"


def test_nothing_in_the_app_imports_the_app_class_but_its_launcher() -> None:
    # the screens, widgets and the palette's commands get what they need passed in, or ask
    # by action name: no module knows the app back (type-only imports included)
    offenders = []
    for path in (PACKAGE / "tui").rglob("*.py"):
        if path.name in {"app.py", "launch.py"}:
            continue
        if "ckviz.tui.app" in imported_modules(path):
            offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []
