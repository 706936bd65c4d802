"""The run-queue Lua scripts (and the read-only `inspect`), read from the package, called by SHA."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from importlib import resources

SCRIPT_NAMES = (
    "enqueue",
    "dequeue",
    "ack",
    "inspect",
    "vtime_enqueue",
    "vtime_dequeue",
    "vtime_ack",
    "vtime_state",
)
# scripts that use lib.lua's helpers
_WITH_LIB = {"enqueue", "dequeue", "ack", "vtime_enqueue", "vtime_dequeue", "vtime_ack"}


@dataclass(frozen=True, slots=True)
class LuaScript:
    """One script's source and the SHA1 Redis knows it by."""

    name: str
    source: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())


def load_scripts() -> dict[str, LuaScript]:
    """Every run-queue script, keyed by name."""
    folder = resources.files("ckviz.store") / "lua"
    lib = (folder / "lib.lua").read_text()
    scripts = {}
    for name in SCRIPT_NAMES:
        own = (folder / f"{name}.lua").read_text()
        scripts[name] = LuaScript(name, lib + own if name in _WITH_LIB else own)
    return scripts
