"""The Redis people run (issue 20 item 17): Debian's redis-server (7.0), started by the tests
themselves, runs ckviz end to end, and `ckviz report` says when two results files ran on
different Redis versions. (The conformance, vtime, Lua and fault tests run on it too:
tests/functional/servers.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer

RUN = ["--headless", "--scenario", "ck_trickle", "--seeds", "seed-a", "--discipline", "sfq"]


def headless(server: RedisServer, out: Path) -> None:
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    assert main([*RUN, "--redis-url", server.url, "--prefix", root, "--out", str(out)]) == 0


def test_the_second_server_is_redis_7(redis7_server: RedisServer) -> None:
    assert redis7_server.version.split(".")[0] == "7", redis7_server.version


@pytest.mark.slow
def test_report_says_when_two_files_ran_on_different_redis_versions(
    redis_server: RedisServer,
    redis7_server: RedisServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    old, new, again = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "again.json"
    headless(redis_server, old)
    headless(redis7_server, new)
    headless(redis7_server, again)
    if redis_server.version == redis7_server.version:
        pytest.skip(f"the session's server is Redis {redis_server.version} too")
    capsys.readouterr()
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    assert main(["report", str(old), str(new), "--markdown", str(md), "--out", str(html)]) == 0
    said = f"these files ran on different Redis versions (old on {redis_server.version}, new on "
    assert f"ckviz: note: {said}" in capsys.readouterr().err
    assert said in md.read_text() and said in html.read_text()
    assert main(["report", str(new), str(again), "--markdown", str(md), "--force"]) == 0
    assert "different Redis versions" not in capsys.readouterr().err + md.read_text()
