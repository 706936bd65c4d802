"""`ckviz --record session.cast` writes the session as asciicast v2 (what the terminal was
sent, timed), asciinema reads it, and `ckviz replay` plays it back honouring its timing.
The app runs in a real pseudo-terminal, driven by key presses, as a person would."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyte
import pytest

import ckviz.commands.replay as replay_command
from ckviz.inputs.casts import read_cast
from ckviz.model.controls import ControlFilter
from tests.functional.cli_support import ckviz_here, exits
from tests.functional.test_faults_cli import assert_nothing_left
from tests.functional.trust_support import ckviz_command, ckviz_env, group_ended, run_ckviz

pytestmark = pytest.mark.xdist_group("test_record_replay")

WIDTH, HEIGHT = 120, 40
DEADLINE_S = 30.0  # generous under load; each wait returns as soon as its condition holds
RUNS_OUT = re.compile(r"micro_skew · vtime .*?(\d+)/160 runs out")


class Terminal:
    """A pseudo-terminal of WIDTH x HEIGHT running one command, its screen emulated."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", HEIGHT, WIDTH, 0, 0))

        def own_terminal() -> None:  # a session whose controlling terminal is this one
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen(
            command, stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=own_terminal
        )
        os.close(slave)
        self.screen = pyte.Screen(WIDTH, HEIGHT)
        self.stream = pyte.ByteStream(self.screen)
        self.received = b""

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def read_until(self, done: re.Pattern[str] | None, what: str) -> re.Match[str] | None:
        """Read (and draw) what the program writes until `done` matches the screen, or until
        the program exits when `done` is None."""
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            if done is not None and (found := done.search(self.text())):
                return found
            if select.select([self.master], [], [], 0.1)[0]:
                try:
                    chunk = os.read(self.master, 1 << 16)
                except OSError:  # EIO: the program closed the terminal
                    chunk = b""
                if chunk:
                    self.received += chunk
                    self.stream.feed(chunk)
                    continue
            if done is None and self.process.poll() is not None:
                return None
        raise AssertionError(f"not within {DEADLINE_S:g} s: {what}\n{self.text()}")

    def press(self, key: str) -> None:
        os.write(self.master, key.encode())

    def close(self) -> None:
        os.close(self.master)


@contextmanager
def terminal(*args: str, env: dict[str, str]) -> Iterator[Terminal]:
    term = Terminal(ckviz_command(*args), env)
    try:
        with group_ended(term.process):  # its session's group: the app and what it started
            yield term
    finally:
        term.close()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session: micro_skew under vtime drawn, space (one call), q."""
    cast = tmp_path_factory.mktemp("cast") / "session.cast"
    env = ckviz_env()
    with terminal("micro_skew", "--discipline", "vtime", "--record", str(cast), env=env) as term:
        term.read_until(re.compile(r"0/160 runs out"), "the app draws")
        term.press(" ")
        term.read_until(re.compile(r"1/160 runs out"), "space steps the app")
        term.press("q")
        term.read_until(None, "q quits the app")
        assert term.process.wait() == 0, term.text()
    assert_nothing_left(env)
    return cast


@pytest.mark.slow
def test_the_recording_is_asciicast_v2_line_by_line(recorded: Path) -> None:
    header, *events = [json.loads(line) for line in recorded.read_text("utf-8").splitlines()]
    assert header["version"] == 2 and type(header["timestamp"]) is int
    assert (header["width"], header["height"]) == (WIDTH, HEIGHT)
    assert abs(header["timestamp"] - time.time()) < 600
    assert len(events) > 3
    times = [at for at, _, _ in events]
    assert all(type(at) in (int, float) for at in times) and times == sorted(times)
    assert {code for _, code, _ in events} <= {"o", "r"}
    assert all(isinstance(data, str) for _, _, data in events)
    assert [e.data for e in read_cast(recorded, "replay").events] == [d for _, _, d in events]


@pytest.mark.slow
def test_the_recorded_output_draws_the_apps_screens(recorded: Path) -> None:
    """Played into a terminal emulator of the header's size, the output shows the app as it
    was: the scenario drawn with no run out, then one run out after the space."""
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    seen: list[int] = []
    for event in read_cast(recorded, "replay").events:
        stream.feed(event.data)
        found = RUNS_OUT.search("\n".join(screen.display))
        if found and (not seen or seen[-1] != int(found.group(1))):
            seen.append(int(found.group(1)))
    assert seen == [0, 1]


@pytest.mark.slow
def test_asciinema_reads_the_recording(recorded: Path) -> None:
    asciinema = shutil.which("asciinema") or str(Path(sys.executable).parent / "asciinema")
    proc = subprocess.run([asciinema, "cat", str(recorded)], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    output = "".join(e.data for e in read_cast(recorded, "replay").events)
    assert proc.stdout.decode("utf-8") == output


@pytest.mark.slow
def test_replay_plays_the_recording_back(recorded: Path) -> None:
    proc = run_ckviz("replay", str(recorded), "--speed", "20", timeout=60)
    recorded_output = "".join(e.data for e in read_cast(recorded, "replay").events)
    controls = ControlFilter()
    assert proc.returncode == 0 and proc.stdout == controls.feed(recorded_output)
    # what Textual asks the terminal (sync output? in-band resize?) is not asked again, nor
    # is the pointer shape set: all else is the recording, byte for byte
    dropped = len(re.findall(r"\x1b\[\?\d+\$p|\x1b\]22;\w+\x07", recorded_output))
    assert controls.finish() == dropped
    said = f"ckviz replay: dropped {dropped} control sequence(s) not replayed" if dropped else ""
    assert proc.stderr.startswith(said), proc.stderr


def write_cast(path: Path, *events: list[object], header: object = None) -> Path:
    header = header or {"version": 2, "width": 20, "height": 5, "timestamp": 0}
    path.write_text("\n".join(json.dumps(x) for x in [header, *events]) + "\n", "utf-8")
    return path


class Clock:
    """replay's clock, faked: its sleeps are recorded and move the time they ask for at once."""

    def __init__(self) -> None:
        self.now, self.slept = 0.0, list[float]()

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.mark.parametrize(
    ("args", "ends_at"),
    [
        ((), 2.0),
        (("--speed", "2"), 1.0),
        (("--speed", "4", "--max-pause", "0.1"), 0.2),  # two pauses of 0.25 s cut to 0.1
    ],
)
@pytest.mark.slow
def test_replay_honours_the_timing_the_speed_and_the_longest_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], ends_at: float
) -> None:
    cast = write_cast(tmp_path / "t.cast", [0, "o", "a"], [1.0, "r", "30x5"], [2.0, "o", "b"])
    clock = Clock()
    monkeypatch.setattr(replay_command, "time", clock)
    proc = ckviz_here("replay", str(cast), *args)
    assert proc.returncode == 0 and proc.stdout == "ab", proc.stderr
    assert clock.now == pytest.approx(ends_at) and len(clock.slept) == 2


def test_replay_refuses_a_speed_of_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cast = write_cast(tmp_path / "t.cast", [0, "o", "a"])
    assert exits(["replay", str(cast), "--speed", "0"], capsys)[0] == 2


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "file not found"),
        ("", "empty, not an asciicast file"),
        ("{not json", "not JSON"),
        ('{"version": 1, "width": 80, "height": 24}', "line 1 (the header): version 1"),
        ('{"version": 2, "width": 0, "height": 24}', "width and height must be positive"),
        (
            '{"version": 2, "width": 8, "height": 2}\n[1, "o"]',
            "line 2: an event is [time, code, data]",
        ),
        (
            '{"version": 2, "width": 8, "height": 2}\n[2, "o", "a"]\n[1, "o", "b"]',
            "line 3: time 1 goes back",
        ),
        ('{"version": 2, "width": 8, "height": 2}\n["0", "o", "a"]', "line 2: time '0' is not"),
        ('{"version": 2, "width": 8, "height": 2}\n[0, "x", "a"]', "line 2: code 'x'"),
        ("\udcff", "cannot read"),
    ],
)
def test_a_bad_cast_is_one_line_naming_it(
    content: str | None,
    says: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replay_command, "time", Clock())  # "goes back" plays 2 s of it first
    path = Path("bad.cast")  # in the test's own folder: a name short enough to be echoed whole
    if content is not None:
        path.write_bytes(content.encode("utf-8", "surrogateescape"))
    code, out, err = exits(["replay", str(path)], capsys)
    assert (code, out) == (2, "a" if "goes back" in says else ""), err  # streamed: played so far
    assert err.strip().splitlines() == [err.strip()]
    assert f"ckviz: error: replay: {path}" in err and says in err, err


def test_record_refuses_what_it_cannot_write_before_the_app_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "old.cast"
    existing.write_text("kept", "utf-8")
    for args, says in (
        (["--record", str(existing)], "already exists; pass --force"),
        (["--record", "-"], "--record: the app draws on stdout"),
        (["--record", str(tmp_path / "no" / "s.cast")], "does not exist"),
        (["--headless", "--record", str(tmp_path / "s.cast")], "--record is for the terminal app"),
    ):
        code, _, err = exits(["micro_skew", "--discipline", "vtime", *args], capsys)
        assert code == 2 and says in err, err
    assert existing.read_text("utf-8") == "kept"
