"""`ckviz replay` on someone else's .cast (issue 35 items 2, 5, 7): in tmux a hostile cast
changes neither the clipboard (tmux's buffer) nor the pane's title, while the same bytes
written raw do; special files are refused; odd lines are one line, never a traceback; the
cast is streamed, so a big one needs no more memory than a small one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.functional.trust_support import ckviz_command, refused_here, run_ckviz
from tests.waiting import wait_until

HEADER = {"version": 2, "width": 80, "height": 24, "timestamp": 0}
HOSTILE = (
    "hello\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]2;pwned-title\x07\x1b]0;pwned-too\x1b\\"
    "\x1bP+q544e\x1b\\\x1b[21t\x1b[6n\x1b[c\x1b[1mbold\x1b[0m world\r\n"
)
DEADLINE_S = 20.0


def write_cast(path: Path, *events: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(x) for x in [HEADER, *events]) + "\n", "utf-8")
    return path


class Tmux:
    """A tmux server of this test's own (its own socket), clipboard writes allowed."""

    def __init__(self) -> None:
        self.socket = f"ckviz-test-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=DEADLINE_S,
        )

    def run_in_pane(self, window: str, command: list[str]) -> None:
        """`command` in a new window; waits until it has exited (the pane stays, dead)."""
        self("new-window", "-d", "-n", window, "-e", f"PATH={os.environ['PATH']}", "cat")
        self("set-option", "-w", "-t", f"t:{window}", "remain-on-exit", "on")
        self("respawn-pane", "-k", "-t", f"t:{window}", " ".join(map(quote, command)))
        wait_until(
            lambda: self.show(window, "#{pane_dead}") == "1",
            f"{command} to finish in tmux",
            DEADLINE_S,
        )

    def show(self, window: str, what: str) -> str:
        return self("display-message", "-p", "-t", f"t:{window}", what).stdout.strip()

    def buffers(self) -> str:
        return self("list-buffers", "-F", "#{buffer_sample}", check=False).stdout


def quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


@contextmanager
def tmux_server() -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.skip("no tmux on PATH (Debian: apt-get install tmux)")
    tmux = Tmux()
    tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", "cat")
    try:
        tmux("set-option", "-s", "set-clipboard", "on")
        tmux("set-option", "-g", "allow-rename", "on")
        yield tmux
    finally:
        tmux("kill-server", check=False)


def test_a_hostile_cast_changes_neither_clipboard_nor_title_in_tmux(tmp_path: Path) -> None:
    cast = write_cast(tmp_path / "hostile.cast", [0, "o", HOSTILE[:9]], [0.01, "o", HOSTILE[9:]])
    raw = tmp_path / "hostile.raw"
    raw.write_text(HOSTILE, "utf-8")
    with tmux_server() as tmux:
        tmux.run_in_pane("replayed", [*ckviz_command("replay", str(cast))])
        title = tmux.show("replayed", "#{pane_title}")
        assert "pwned" not in title and "pwned" not in tmux.buffers()
        screen = tmux("capture-pane", "-p", "-t", "t:replayed").stdout
        assert "dropped 7 control sequence(s)" in screen
        # the same bytes written raw: tmux takes the clipboard and the title from them
        tmux.run_in_pane("raw", ["cat", str(raw)])
        assert "pwned" in tmux.show("raw", "#{pane_title}")
        assert "echo pwned" in tmux.buffers()


def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "session.cast"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda _: Path("/dev/zero"), "cannot read: not a regular file (a character device)"),
        (fifo, "cannot read: not a regular file (a FIFO)"),
    ],
    ids=["dev-zero", "fifo"],
)
def test_replay_reads_regular_files_only(tmp_path: Path, make: object, says: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    proc = run_ckviz("replay", str(path), timeout=DEADLINE_S)  # a FIFO: no wait for a writer
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, "line 2: not valid JSON: nested too deeply"),
        ('[1e308, "o", "x"]', "line 2: time 1e+308 is past 10,000,000 s"),
        ('[0, "o", "x"]\n[' + "9" * 5000 + ', "o", "y"]', "line 3: not valid JSON"),
    ],
    ids=["nested-100000", "time-1e308", "a-5000-digit-time"],
)
def test_odd_lines_are_one_line_not_a_traceback(tmp_path: Path, line: str, says: str) -> None:
    cast = tmp_path / "odd.cast"  # named from its folder: short enough to be echoed whole
    cast.write_text(json.dumps(HEADER) + "\n" + line + "\n", "utf-8")
    proc = refused_here("replay", cast.name, cwd=tmp_path)
    assert proc.returncode == 2 and f"replay: {cast.name}: {says}" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_lone_surrogate_is_replaced_not_a_traceback(tmp_path: Path) -> None:
    cast = tmp_path / "s.cast"
    cast.write_text(json.dumps(HEADER) + '\n[0, "o", "a\\ud800b"]\n', "utf-8")
    proc = run_ckviz("replay", str(cast), timeout=DEADLINE_S)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "a\ufffdb", "")


PEAK_RSS = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


@pytest.mark.slow
def test_a_big_cast_is_streamed_not_read_whole(tmp_path: Path) -> None:
    cast, small = tmp_path / "big.cast", tmp_path / "small.cast"
    frame = "\x1b[H" + "x" * (1 << 20)  # 1 MiB events, 96 of them
    with cast.open("w", encoding="utf-8") as f:
        f.write(json.dumps(HEADER) + "\n")
        for _ in range(96):
            f.write(json.dumps([0, "o", frame]) + "\n")
    write_cast(small, [0, "o", frame])

    def peak_kib(path: Path) -> int:
        command = [sys.executable, "-c", PEAK_RSS, *ckviz_command("replay", str(path))]
        return int(subprocess.run(command, capture_output=True, text=True, check=True).stdout)

    grown = peak_kib(cast) - peak_kib(small)
    assert grown < 32 * 1024, f"a 96 MiB cast took {grown} KiB more than a 1 MiB one"
