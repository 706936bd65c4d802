"""A Redis server under callgrind, for the benches: the instructions the server executed while
a piece of work ran. Unlike its microseconds they do not move with what else the machine runs
(the same work counts the same to within a few thousandths), so two scripts can be compared
on a loaded machine. The server runs ~50 times slower meanwhile: its times mean nothing then.

Needs valgrind (`valgrind` and `callgrind_control` on PATH).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from ckviz.store.server import RedisServer, embedded_server, find_redis_server

T = TypeVar("T")


class Instructions:
    """Counts what the server under callgrind executes while `work` runs (nothing else)."""

    def __init__(self, pid: int, out: Path) -> None:
        self.pid = pid
        self.out = out
        self.dumps = 0

    def _control(self, *args: str) -> None:
        subprocess.run(
            ["callgrind_control", *args, str(self.pid)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def count(self, work: Callable[[], T]) -> tuple[T, int]:
        """`work`'s result, and the instructions the server executed while it ran."""
        self._control("--zero")
        self._control("--instr=on")
        try:
            result = work()
        finally:
            self._control("--instr=off")
        self._control("--dump")
        self.dumps += 1
        text = Path(f"{self.out}.{self.dumps}").read_text()
        totals = re.search(r"^totals: (\d+)", text, re.MULTILINE)
        return result, int(totals.group(1)) if totals else 0


@contextlib.contextmanager
def counted_server() -> Iterator[tuple[RedisServer, Instructions]]:
    """ckviz's embedded server, run under callgrind with counting off until asked."""
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        sys.exit("--instructions: needs valgrind (valgrind and callgrind_control on PATH)")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        wrapper = Path(folder) / "redis-server"
        wrapper.write_text(
            "#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no"
            f' --callgrind-out-file={out} {find_redis_server()} "$@"\n'
        )
        wrapper.chmod(0o755)
        with embedded_server(wrapper) as server:
            assert server.pid is not None
            yield server, Instructions(server.pid, out)
