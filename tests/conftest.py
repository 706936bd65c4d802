"""Shared fixtures: one embedded Redis per test session (or CKVIZ_TEST_REDIS_URL), a fresh
key prefix per test, never a flush."""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from hypothesis import settings

from ckviz.sim.cell.session import new_namespace
from ckviz.store.prefix import delete_prefix
from ckviz.store.server import RedisServer, embedded_server, find_redis_server, open_server

DATA = Path(__file__).parent / "data"

# pytest-xdist's workers run with COLUMNS=80 and LINES=24 set, which ckviz (as every program
# asking shutil or Textual) takes over the size of the terminal a test gives it: a terminal's
# size comes from the terminal.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)

# An environment saying PYTHONDONTWRITEBYTECODE (some CI images and shared machines do) makes
# every interpreter the suite starts (each xdist worker, each `ckviz` subprocess) compile ckviz,
# Textual and matplotlib from source again: a second or two of CPU each, hundreds of times. Their
# bytecode goes to a folder of the temp dir instead, never beside the sources (.ci/run, in a
# clone of its own, unsets the variable and compiles everything first). This file is loaded
# before xdist starts its workers, so they inherit it.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault(
        "PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / f"ckviz-pycache-{os.getuid()}")
    )
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False

# Hypothesis fails a case slower than its deadline (200 ms): a wall-clock assert, which a loaded
# machine or a busy parallel worker trips though nothing is wrong. Speed belongs to bench/.
settings.register_profile("ckviz", deadline=None)
settings.load_profile("ckviz")


@pytest.fixture(scope="session")
def vectors() -> dict:
    return json.loads((DATA / "seedrandom_and_workloads.json").read_text())


@pytest.fixture(autouse=True)
def _own_working_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test starts in an empty folder of its own, never the checkout: what ckviz writes by
    default (results.json, report.html, the app's exports) lands there, and a file the README's
    first command left in the checkout cannot change what a test sees."""
    folder = tmp_path_factory.mktemp("cwd")
    monkeypatch.chdir(folder)
    return folder


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@pytest.fixture(autouse=True)
def keep_signals() -> Iterator[None]:
    """`ckviz.cli.main` installs SIGINT, SIGTERM and SIGHUP handlers; give pytest its own back."""
    saved = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup() -> Iterator[None]:
    """The same around every fixture's setup: a module's or session's fixture running ckviz in
    this process would otherwise leave ckviz's stop handlers to every later test of the worker
    (keep_signals, set up after it, would take them for pytest's)."""
    saved = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.fixture(autouse=True, scope="session")
def _no_job_summary() -> Iterator[None]:
    """A test's `ckviz --headless` never appends to the job summary of the CI running it."""
    saved = os.environ.pop("GITHUB_STEP_SUMMARY", None)
    yield
    if saved is not None:
        os.environ["GITHUB_STEP_SUMMARY"] = saved


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """The embedded server ckviz starts itself, or the one CKVIZ_TEST_REDIS_URL names."""
    with open_server(url=os.environ.get("CKVIZ_TEST_REDIS_URL")) as server:
        yield server


# Debian's and Ubuntu's package: Redis 7, what people run (CKVIZ_REDIS_7 names another
# place, for .ci/run's own tests)
REDIS_7 = Path(os.environ.get("CKVIZ_REDIS_7") or "/usr/bin/redis-server")
SERVERS = ["embedded", "redis-7"]  # the ids of tests run on both


def require_redis7(binary: Path = REDIS_7) -> Path:
    """`binary` where it is installed; else the test is skipped, saying why, or under CI
    (`CI` set, as GitHub Actions and .ci/run do) fails: CI never passes without Redis 7."""
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    reason = f"{binary} is absent: apt-get install redis-server (.ci/run does)"
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        pytest.fail(f"{reason}; CI requires it")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def redis7_server() -> Iterator[RedisServer]:
    """A second embedded server, from Debian's redis-server (7.0 on bookworm), started the way
    ckviz starts its own; where that binary is not installed, skipped or under CI failed."""
    with embedded_server(binary=require_redis7()) as server:
        yield server


@pytest.fixture(params=SERVERS)
def redis_binary(request: pytest.FixtureRequest) -> Path:
    """For tests that start servers of their own: the embedded binary, then Redis 7's
    (where it is not installed: skipped, or under CI failed)."""
    if request.param == "redis-7":
        return require_redis7()
    return find_redis_server()


@pytest.fixture
def client(redis_server: RedisServer) -> Iterator[redis.Redis]:
    c = redis_server.client()
    yield c
    c.close()


@pytest.fixture
def prefix(client: redis.Redis) -> Iterator[str]:
    """A key prefix no other test uses; whatever a test leaves under it is deleted after."""
    ns = new_namespace("ckviz-test")
    yield ns
    delete_prefix(client, ns)
