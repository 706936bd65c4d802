"""The run-queue Lua scripts, read from the package, called by SHA.

Every `lua/*.lua` but `lib.lua` is a script named after its file, with `lib.lua`'s helpers in
front: a discipline that brings its own scripts adds files here and no list.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from importlib import resources

LIB = "lib.lua"


@dataclass(frozen=True, slots=True)
class LuaScript:
    """One script's source and the SHA1 Redis knows it by."""

    name: str
    source: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())


def load_scripts() -> dict[str, LuaScript]:
    """Every run-queue script, keyed by name (its file name without `.lua`), in name order."""
    folder = resources.files("ckviz.store") / "lua"
    lib = (folder / LIB).read_text()
    files = sorted(
        (f for f in folder.iterdir() if f.name.endswith(".lua") and f.name != LIB),
        key=lambda f: f.name,
    )
    return {f.name[:-4]: LuaScript(f.name[:-4], lib + f.read_text()) for f in files}
