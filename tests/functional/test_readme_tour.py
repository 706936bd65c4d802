"""The README's tour runs as printed (issue 35 item 12): every line of `## A short tour`, in
order, in an empty folder, after the README's first command wrote results.json there (it
failed at line 3, `results.json already exists`, and validated a file nobody wrote). The app's
lines run on a pseudo-terminal and are quit with `q`; `serve` is started and stopped; hunt's
own reproduce line runs too."""

from __future__ import annotations

import os
import pty
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import pytest

from tests.functional.cli_support import ckviz
from tests.shared_runs import default_matrix_results

README = Path(__file__).resolve().parents[2] / "README.md"
APP_WAIT_S = 60.0  # an app draws within seconds; a hung one fails here


def tour_lines() -> list[list[str]]:
    """The tour's lines as a shell splits them, comments dropped."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## A short tour\n\n```sh\n(.*?)```", text, re.S)
    assert block is not None
    return [shlex.split(line, comments=True) for line in block.group(1).splitlines()]


def on_a_terminal(args: list[str], cwd: Path, *, quit_after: str | None) -> tuple[int, str]:
    """`ckviz ARGS` on a pseudo-terminal, its screen read as it draws; once `quit_after` has
    been drawn, `q` is typed. The exit code and what was drawn."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ckviz", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=cwd,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"},
    )
    os.close(follower)
    drawn = b""
    quit_sent = quit_after is None
    deadline = time.monotonic() + APP_WAIT_S
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    drawn += os.read(leader, 65536)
                except OSError:
                    break
            if not quit_sent and quit_after is not None and quit_after.encode() in drawn:
                os.write(leader, b"q")
                quit_sent = True
        code = proc.wait(timeout=30) if quit_sent else -1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
    return code, drawn.decode(errors="replace")


def serve_then_stop(args: list[str], cwd: Path) -> int:
    """`ckviz serve ...` until it prints its URL, then Ctrl-C."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ckviz", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "http://" in line:
                break
        else:
            pytest.fail("serve ended without printing its URL")
        proc.send_signal(signal.SIGINT)
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


COMMANDS = {
    "report",
    "validate",
    "hunt",
    "stress",
    "merge",
    "check",
    "replay",
    "serve",
    "watch",
    "capture",
}
FIRST = "results.json"  # what the README's first command writes, before the tour
WRITES = ("--out", "--record")  # the flags naming a file a line writes


def tour_parts(lines: list[list[str]]) -> list[list[int]]:
    """The tour's lines (their indices) in parts that can run apart, each in its own folder:
    a line reading a file an earlier line wrote joins that line's part, in the README's order.
    The parts run on parallel workers; one line after another, the tour took a minute and a
    half on one worker and set the suite's tail."""
    part_of: dict[int, int] = {}
    writer: dict[str, int] = {}  # a file written -> the line that wrote it
    for i, words in enumerate(lines):
        read = [writer[w] for w in words if w in writer]
        part_of[i] = part_of[read[0]] if read else i
        for flag, value in pairwise(words):
            if flag in WRITES:
                writer[value] = i
    parts: dict[int, list[int]] = {}
    for i in sorted(part_of):
        parts.setdefault(part_of[i], []).append(i)
    return list(parts.values())


def _part_id(lines: list[list[str]], part: list[int]) -> str:
    first = lines[part[0]][3:]
    name = first[0] if first and (first[0] in COMMANDS or first[0].startswith("-")) else "app"
    return f"line{part[0] + 1}-{name.lstrip('-')}"


TOUR = tour_lines()
PARTS = tour_parts(TOUR)


def test_the_parts_hold_every_tour_line_once_in_order() -> None:
    assert sorted(i for part in PARTS for i in part) == list(range(len(TOUR)))
    assert all(part == sorted(part) for part in PARTS)
    assert len(PARTS) > 1  # else the tour runs on one worker again


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS, ids=[_part_id(TOUR, p) for p in PARTS])
def test_the_readme_tour_runs_as_printed(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, part: list[int]
) -> None:
    if any(FIRST in TOUR[i] for i in part):  # what the README's first command wrote
        shutil.copy(default_matrix_results(tmp_path_factory), tmp_path / FIRST)
    for i in part:
        _run_line(TOUR[i], tmp_path)


def _run_line(words: list[str], cwd: Path) -> None:
    """One tour line, in `cwd`, as a user at a terminal would run it."""
    assert words[:3] == ["uv", "run", "ckviz"], words
    args = words[3:]
    shown = shlex.join(words)
    if args and args[0] == "serve":
        assert serve_then_stop(args, cwd) in (0, 130), shown
    elif not args or (not args[0].startswith("-") and args[0] not in COMMANDS):
        code, drawn = on_a_terminal(args, cwd, quit_after="Quit")
        assert code == 0, (shown, drawn[-2000:])
    elif args[0] == "replay":
        code, drawn = on_a_terminal(args, cwd, quit_after=None)
        assert code == 0, (shown, drawn[-2000:])
    else:
        proc = ckviz(*args, cwd=cwd, timeout=600)
        assert proc.returncode == 0, (shown, proc.stderr[-2000:])
        if args[0] == "hunt":
            reproduce = shlex.split(proc.stdout.split("reproduce: ", 1)[1].splitlines()[0])
            assert reproduce[0] == "ckviz"
            again = ckviz(*reproduce[1:], cwd=cwd, timeout=600)
            assert again.returncode == 0, again.stderr
