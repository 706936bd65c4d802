"""What a `ckviz --headless` process does besides its cells: it loads only what the matrix
needs, and stops the server it started without waiting for the server's next tick."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ckviz.store import launch as launch_module
from ckviz.store.launch import ask_to_shut_down
from ckviz.store.server import (
    RedisServer,
    connect,
    embedded_server,
    find_redis_server,
    server_started_early,
)
from tests.waiting import wait_until

# `ckviz` as its entry point runs it, the loaded modules written at the very end
RUN_AND_LIST = """
import atexit, json, sys
listed = sys.argv[1]
atexit.register(lambda: json.dump(sorted(sys.modules), open(listed, "w")))
sys.argv = ["ckviz", *sys.argv[2:]]
from ckviz.cli import run
run()
"""

# what the terminal app, the other commands and a terminal's progress bar need, not a matrix
NOT_ON_THE_PATH = (
    "textual",
    "ckviz.tui",
    "ckviz.hunt",
    "ckviz.stress",
    "ckviz.report.html",
    "ckviz.report.markdown",
    "ckviz.report.plots",
    "ckviz.report.findings",
    "rich.progress",
    "rich.live",
    "xml",  # --junit's
    "difflib",  # a mistyped name's
)


@pytest.mark.slow
def test_a_headless_run_loads_no_app_no_other_command_and_no_progress_bar(tmp_path: Path) -> None:
    listed = tmp_path / "modules.json"
    out = tmp_path / "results.json"
    args = ["--headless", "--scenario", "micro_skew", "--discipline", "baseline", "--seeds", "a"]
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, str(listed), *args, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    modules = json.loads(listed.read_text())
    assert json.loads(out.read_text())["complete"] is True
    assert (
        "ckviz.sim.millisecond_clock.driver" in modules and "ckviz.headless.report" in modules
    )  # a real run
    loaded = [m for m in modules if m.startswith(NOT_ON_THE_PATH)]
    assert loaded == []


# `ckviz` (the app) as its entry point runs it, headless, the loaded modules written once its
# first frame is drawn (the hook is put on the app's class when ckviz imports it)
FIRST_FRAME_PROBE = Path(__file__).resolve().parents[2] / "bench" / "first_frame_probe.py"

# what the app's first frame does not need (issue 37 item 9: loaded when asked for)
NOT_BEFORE_THE_FIRST_FRAME = (
    "ckviz.headless",  # the export's results (x), the --consumers checks
    "ckviz.report",
    "ckviz.live",
    "ckviz.hunt",
    "ckviz.stress",
    "ckviz.player.export",  # x
    "ckviz.tui.screens.help",  # ?: Markdown's parser and a highlighter
    "ckviz.tui.web",
    "ckviz.tui.watch_app",
    "markdown_it",
    "pygments",
    "xml",
)


@pytest.mark.slow
def test_the_app_draws_its_first_frame_without_loading_what_it_does_not_show(
    tmp_path: Path,
) -> None:
    listed = tmp_path / "modules.json"
    env = {**os.environ, "FIRST_FRAME_MODULES": str(listed)}
    done = subprocess.run(
        [sys.executable, "-P", str(FIRST_FRAME_PROBE), "ck_skew"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    modules = json.loads(listed.read_text())
    assert "ckviz.tui.widgets.queue.key_queues" in modules and "ckviz.sim.engine" in modules
    assert [m for m in modules if m.startswith(NOT_BEFORE_THE_FIRST_FRAME)] == []


def test_the_embedded_server_exits_when_asked_to_shut_down(tmp_path: Path) -> None:
    socket_path = tmp_path / "redis.sock"
    command = [str(find_redis_server()), "--port", "0", "--unixsocket", str(socket_path)]
    command += ["--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # refused until it listens
        wait_until(lambda: server.poll() is None and ask_to_shut_down(socket_path), "SHUTDOWN")
        assert server.wait(timeout=30) == 0  # no signal needed: it exited on its own
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_a_server_started_early_is_the_one_the_command_gets_and_none_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with server_started_early("embedded", None):
        early = launch_module._early[0]
        with embedded_server() as server:
            assert server.pid == early.process.pid and launch_module._early == []
        assert early.process.poll() is not None
    with server_started_early("embedded", None):
        untaken = launch_module._early[0]
    assert untaken.process.poll() is not None and launch_module._early == []
    with server_started_early("embedded", "redis://elsewhere:6379"):
        assert launch_module._early == []  # a URL: nothing to start
    assert list(tmp_path.glob("ckviz-redis-*")) == []


def test_a_refused_flag_after_the_early_start_leaves_no_server_folder(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("CKVIZ_REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "ckviz", "--headless", "--scenario", "no_such_scenario"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "unknown scenario 'no_such_scenario'" in done.stderr
    assert list(tmp_path.glob("ckviz-redis-*")) == []


def test_a_connection_names_redis_py_without_reading_the_package_metadata(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def looked_up(name: str) -> str:
        raise AssertionError(f"looked {name}'s version up")

    monkeypatch.setattr(importlib.metadata, "version", looked_up)
    client = connect(redis_server.url)
    try:
        assert client.ping() is True
    finally:
        client.close()


# `ckviz` as its entry point runs it, noting how many threads ran at each fork (a worker's)
RUN_AND_NOTE_FORKS = """
import atexit, json, os, sys, threading
noted = sys.argv[1]
forks = []
os.register_at_fork(before=lambda: forks.append([threading.active_count(), "rich" in sys.modules]))
atexit.register(lambda: json.dump(forks, open(noted, "w")))
sys.argv = ["ckviz", *sys.argv[2:]]
from ckviz.cli import run
run()
"""


@pytest.mark.slow
def test_workers_fork_before_the_progress_bar_draws_and_before_the_end_loads(
    tmp_path: Path,
) -> None:
    # a terminal's progress bar draws from a thread of its own: a fork while it runs copies
    # its locks, held or not, into the worker. rich itself (the tables, the progress lines)
    # is loaded while the cells run, not before the workers start.
    noted, out = tmp_path / "forks.json", tmp_path / "results.json"
    args = ["--headless", "--scenario", "micro_skew", "--discipline", "baseline"]
    args += ["--discipline", "vtime", "--seeds", "a", "--jobs", "2", "--out", str(out)]
    env = {**os.environ, "TTY_INTERACTIVE": "1"}  # rich draws the bar as on a terminal
    env.pop("CKVIZ_REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_NOTE_FORKS, str(noted), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["complete"] is True
    forks = json.loads(noted.read_text())
    assert len(forks) >= 2  # the two workers' (and the embedded server's start)
    assert [threads for threads, _ in forks] == [1] * len(forks)
    assert not any(rich for _, rich in forks)
