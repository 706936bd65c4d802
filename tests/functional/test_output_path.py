"""`--out` as an adversary gives it: checked before the first cell, symlinks followed, special
files written in place (never replaced), and results saved elsewhere when the write fails."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.trust_support import ckviz_command, ckviz_env

ONE_CELL = ("--headless", "--scenario", "ck_trickle", "--discipline", "sfq", "--seeds", "seed-a")


def run_main(redis_server: RedisServer, out: str, *more: str) -> int:
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    return main([*ONE_CELL, "--redis-url", redis_server.url, "--prefix", root, "--out", out, *more])


def test_an_existing_results_file_is_kept_unless_forced(
    redis_server: RedisServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    out.write_text("earlier results")
    assert run_main(redis_server, str(out)) == ExitCode.USAGE
    (line,) = capsys.readouterr().err.splitlines()  # refused before any cell ran
    assert (
        line
        == f"ckviz: error: --out: {out} already exists; pass --force to overwrite it, or give another path"
    )
    assert out.read_text() == "earlier results"
    assert run_main(redis_server, str(out), "--force") == ExitCode.OK
    assert json.loads(out.read_text())["complete"] is True


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda d: str(d / "missing" / "r.json"), "does not exist (create it first)"),
        (lambda d: str(d / "file" / "r.json"), "is not a directory"),
        (lambda d: "/proc/ckviz-x.json", "--out: cannot write in /proc"),
        (lambda d: str(d), "is a directory"),
    ],
)
def test_a_bad_out_is_refused_before_the_first_cell(
    make,
    needle: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    (tmp_path / "file").write_text("x")
    out = make(tmp_path)
    code = main([*ONE_CELL, "--redis-url", "unix:///nonexistent/redis.sock", "--out", out])
    captured = capsys.readouterr()
    assert code == ExitCode.USAGE, captured.err
    (line,) = captured.err.splitlines()  # refused before Redis is even tried
    assert line.startswith("ckviz: error: --out") and needle in line
    assert not (tmp_path / "missing").exists()  # no folder made on the way


def test_a_symlink_is_written_through_not_replaced(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert run_main(redis_server, str(link), "--force") == ExitCode.OK
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["complete"] is True


def test_a_special_file_is_written_in_place(redis_server: RedisServer, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"  # a FIFO stands in for /dev/null: renaming over it replaces it
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert run_main(redis_server, str(fifo)) == ExitCode.OK
        assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a FIFO
        reader.join(timeout=10)
        assert got and json.loads(got[0])["complete"] is True
    finally:
        if reader.is_alive():  # unblock the reader's open() so the thread ends
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root (the FIFO test covers the path)")
def test_a_device_stays_a_device(redis_server: RedisServer, tmp_path: Path) -> None:
    # a private copy of /dev/null's device node: a regression replaces this one, not the
    # machine's /dev/null (root in a container is exactly where that happened)
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    assert run_main(redis_server, str(null)) == ExitCode.OK
    assert stat.S_ISCHR(null.lstat().st_mode)


def _small_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))


@pytest.mark.slow
def test_a_failed_final_write_saves_the_results_elsewhere(tmp_path: Path) -> None:
    env = ckviz_env()
    out = tmp_path / "r.json"
    proc = subprocess.run(
        ckviz_command(*ONE_CELL, "--out", str(out)),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=_small_file_limit,  # the results file is larger than 4 KB
    )
    try:
        assert proc.returncode == ExitCode.USAGE, proc.stderr
        assert "Traceback" not in proc.stderr
        (line,) = [x for x in proc.stderr.splitlines() if x.startswith("ckviz: error")]
        assert f"--out: cannot write {out}" in line and "results saved to " in line
        saved = Path(line.split("results saved to ")[1].split(" instead")[0])
        assert saved.parent == Path(env["TMPDIR"])
        assert json.loads(saved.read_text())["complete"] is True
        assert list(tmp_path.iterdir()) == []  # no truncated file, no .tmp left
    finally:
        subprocess.run(["rm", "-rf", env["TMPDIR"]], check=False)
