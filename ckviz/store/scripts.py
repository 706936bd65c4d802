"""Lua scripts as the store runs them, and the door a discipline's runs go through.

A package's `lua/*.lua` files are its scripts, each named after its file with the lib
helpers it calls in front. The store brings the run queue's own (`enqueue`, `dequeue`, `ack`,
`inspect`) and the run lifecycle's flag-off ones (`ckviz.store.lifecycle`: `nack`,
`dead_letter`, `enqueue` with a TTL or a fast-path offer, the `expire_ttl` sweep); a discipline
whose state lives in Redis brings its own through its `Door`, and the store runs them without
knowing whose they are.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

LIB = "lib.lua"
_WORD = re.compile(r"\w+")  # a maximal run of word characters: an identifier, a number

Decoder = Callable[[Any], Any]  # a script's reply, read into what its caller wants


@dataclass(frozen=True, slots=True)
class LuaScript:
    """One script's source and the SHA1 Redis knows it by."""

    name: str
    source: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())


def load_scripts(package: str = "ckviz.store", libs: tuple[str, ...] = ()) -> dict[str, LuaScript]:
    """Every script of `package`'s `lua/` folder but the lib, keyed by name (its file name
    without `.lua`), in name order, each with the functions it calls of the store's lib, then of the
    `lib.lua` of each package in `libs`, then of the package's own `lib.lua`, in front."""
    lib = (resources.files("ckviz.store") / "lua" / LIB).read_text()
    for other in (*libs, package):
        own_lib = resources.files(other) / "lua" / LIB
        if other != "ckviz.store" and own_lib.is_file():
            lib += own_lib.read_text()
    folder = resources.files(package) / "lua"
    files = sorted(
        (f for f in folder.iterdir() if f.name.endswith(".lua") and f.name != LIB),
        key=lambda f: f.name,
    )
    return {f.name[:-4]: LuaScript(f.name[:-4], with_lib(lib, f.read_text())) for f in files}


def with_lib(lib: str, body: str) -> str:
    """`body` with the lib's functions it calls (directly or through each other) in front, in
    the lib's order: Redis builds every local function of a script on every call, so the ~20
    of the three libs would cost each call more than most of its commands."""
    pieces = lib_functions(lib)
    kept: list[str] = []
    # the names the kept text uses: a function is called by a whole word (a regex search per
    # function over the growing text cost ~10 ms per package at every start)
    words = set(_WORD.findall(body))
    for name, text in reversed(pieces):  # a local function calls only those defined above it
        if name in words:
            kept.append(text)
            words.update(_WORD.findall(text))
    return "".join(reversed(kept)) + body


def lib_functions(lib: str) -> list[tuple[str, str]]:
    """The lib cut into its top-level functions, each with the comment lines above it."""
    pieces: list[tuple[str, str]] = []
    lines: list[str] = []
    name = ""
    for line in lib.splitlines(keepends=True):
        lines.append(line)
        if line.startswith("local function "):
            name = line[len("local function ") :].split("(", 1)[0]
        elif line.rstrip() == "end" and name:
            pieces.append((name, "".join(lines)))
            lines, name = [], ""
    return pieces


RUN_QUEUE = load_scripts()  # the store's own: enqueue, dequeue, ack, inspect
LIFECYCLE_LIB = "ckviz.store.lifecycle"  # release, lazy_init_length, drop_legacy_master
LIFECYCLE = load_scripts(LIFECYCLE_LIB)  # flag off: dead_letter, enqueue, expire_ttl, nack


@dataclass(frozen=True, slots=True)
class Door:
    """How a discipline's runs reach Redis: the scripts for enqueue, dequeue and ack, those of
    the run lifecycle (nack, dead-letter, the enqueue with a TTL or a fast-path offer, the TTL
    sweep; the flag-off ones unless the discipline has its own), the discipline's own state
    keys (each `B:<name>` under the base queue, added after every script's usual KEYS), its own
    ARGV (after every script's usual ARGV: a quantum, a TTL...) and whether the driver rescores
    ckIndex before a dequeue. A discipline whose state lives in Redis may name `reads`:
    a read-only script over its state keys (ARGV: a listing limit, then the ckIndex members
    asked for) that rides at the end of each checked trip. `dequeue_reply` and `read_reply`
    read its scripts' replies (None: the dequeue's are plain runs)."""

    enqueue: LuaScript = RUN_QUEUE["enqueue"]
    dequeue: LuaScript = RUN_QUEUE["dequeue"]
    ack: LuaScript = RUN_QUEUE["ack"]
    nack: LuaScript = LIFECYCLE["nack"]
    dead_letter: LuaScript = LIFECYCLE["dead_letter"]
    enqueue_ttl: LuaScript = LIFECYCLE["enqueue"]  # with a TTL or a fast-path offer
    expire_ttl: LuaScript = LIFECYCLE["expire_ttl"]
    state_keys: tuple[str, ...] = ()
    argv: tuple[str | int, ...] = ()
    rescores: bool = False  # client side: read ckIndex, order it in Python, write the order
    reads: LuaScript | None = None
    dequeue_reply: Decoder | None = None
    read_reply: Decoder | None = None
    # how the raw replies of `reads` asked about many keys join when sent in pages
    # (store/pages.py; None: never split)
    read_join: Callable[[Sequence[Any]], Any] | None = None

    @property
    def scripts(self) -> tuple[LuaScript, ...]:
        """The scripts it names, each once."""
        named = (
            self.enqueue,
            self.dequeue,
            self.ack,
            self.nack,
            self.dead_letter,
            self.enqueue_ttl,
            self.expire_ttl,
            self.reads,
        )
        return tuple({s.sha: s for s in named if s is not None}.values())


LUA_ORDER = Door()  # the dequeue script's own order: lowest ckIndex score first
RESCORED = Door(rescores=True)
