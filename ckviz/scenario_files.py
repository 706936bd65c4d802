"""Finding and reading scenario files: bundled names or any TOML path."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from ckviz.errors import UsageError
from ckviz.model.scenario import Scenario


def bundled_dir() -> Path:
    """Bundled scenarios: inside an installed wheel, else the checkout's `scenarios/`."""
    packaged = Path(str(resources.files("ckviz"))) / "scenarios"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "scenarios"


def bundled_names() -> list[str]:
    return sorted(p.stem for p in bundled_dir().glob("*.toml"))


def resolve(name_or_path: str) -> Path:
    """A bundled scenario's file by name, or the path given; UsageError if neither exists."""
    as_path = Path(name_or_path)
    if as_path.suffix == ".toml" or as_path.parent != Path("."):
        if not as_path.is_file():
            raise UsageError(f"{name_or_path}: scenario file not found")
        return as_path
    bundled = bundled_dir() / f"{name_or_path}.toml"
    if bundled.is_file():
        return bundled
    known = ", ".join(bundled_names())
    raise UsageError(f"unknown scenario '{name_or_path}' (bundled: {known}; or give a .toml path)")


def load(name_or_path: str) -> Scenario:
    """Read and validate a scenario; its name is the file stem."""
    path = resolve(name_or_path)
    problems = problems_in(path)
    if problems:
        raise UsageError(problems[0] if len(problems) == 1 else "; ".join(problems))
    return parse(path)


def parse(path: Path) -> Scenario:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data.setdefault("name", path.stem)
    return Scenario.model_validate(data)


def problems_in(path: Path) -> list[str]:
    """Every problem with a scenario file, one line each: `file: key.path: reason`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{path}: cannot read: {exc.__class__.__name__}: {exc}"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [f"{path}: not valid TOML: {exc}"]
    data.setdefault("name", path.stem)
    try:
        Scenario.model_validate(data)
    except ValidationError as exc:
        return [f"{path}: {_where(err['loc'])}: {err['msg']}" for err in exc.errors()]
    return []


def _where(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts[-1:] = [f"{parts[-1]}[{item}]"] if parts else [f"[{item}]"]
        else:
            parts.append(str(item))
    return ".".join(parts) or "(top level)"
