"""The embedded server's temp folders: who owns each, and removing those whose owners died.

`kill -9` of ckviz leaves its server's folder (socket, log) behind: the server dies with
ckviz (parent-death signal) but nobody is left to remove the folder. Each folder names its
ckviz and server by pid and start time, so the next start can tell a dead run's folder from a
live one's, even after a pid was reused.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

WORKDIR_PREFIX = "ckviz-redis-"
OWNERS_FILE = "owners"


def write_owners(workdir: Path, *pids: int) -> None:
    """Who uses this folder: pid and start time of ckviz and its server, one per line."""
    lines = [f"{pid} {_started(pid)}" for pid in pids]
    # written whole then renamed: another ckviz sweeping at that moment must never read an
    # empty file (opened, not yet written) and take a live server's folder for a dead one's
    partial = workdir / f".{OWNERS_FILE}.{os.getpid()}"
    partial.write_text("\n".join(lines) + "\n")
    partial.replace(workdir / OWNERS_FILE)


def _started(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), None if it is gone (or a zombie):
    a pid alone may have been reused."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[19] if len(fields) > 19 and fields[0] != "Z" else None


def remove_stale_workdirs() -> list[Path]:
    """Remove the temp folders of embedded servers whose ckviz and server are both gone
    (ckviz was killed with -9, so its own cleanup never ran). Only folders this user owns
    and whose owners file ckviz wrote; the removed ones are returned."""
    removed: list[Path] = []
    if _started(os.getpid()) is None:
        return removed  # no /proc: liveness cannot be told, so nothing is stale
    for folder in Path(tempfile.gettempdir()).glob(f"{WORKDIR_PREFIX}*"):
        try:
            if folder.stat().st_uid != os.getuid():
                continue
            owners = (folder / OWNERS_FILE).read_text().split("\n")
        except OSError:
            continue
        if not any(owners):
            continue  # not written yet (or by a ckviz before the rename): not known dead
        alive = False
        for line in filter(None, owners):
            pid, _, started = line.partition(" ")
            alive = alive or (pid.isdigit() and _started(int(pid)) == started)
        if not alive:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
