"""Every file ckviz writes goes through one writer with one set of rules: an existing file is
replaced only with --force, a device stays a device, a symlink stays a link, `-` is stdout, a
concurrent run never silently overwrites another's results, a full disk leaves nothing
half-written, a FIFO nobody reads times out. Devices are made on a private tmpfs (a mount
namespace of the test's own), never the machine's."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz_here
from tests.functional.trust_support import ckviz_command, ckviz_env, popen_ckviz, wait_for_line

# no xdist_group: the module fixture is one cell, cheaper made on each worker than the
# file's subprocesses and tmpfs mounts run on one
pytestmark = pytest.mark.slow

ONE_CELL = ("--headless", "--scenario", "ck_trickle", "--discipline", "sfq", "--seeds", "seed-a")
NOWHERE = ("--redis-url", "unix:///nonexistent/redis.sock")  # refused before it is tried


def fresh_root() -> str:
    return new_namespace("ckviz-test").rstrip(":").replace(":", "-")


def on(redis_server: RedisServer) -> tuple[str, ...]:
    return ("--redis-url", redis_server.url, "--prefix", fresh_root())


def run(*args: str, timeout: float = 120, **kw: object) -> subprocess.CompletedProcess[str]:
    env = ckviz_env(**kw.pop("env", {}))  # type: ignore[arg-type]
    try:
        streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kw}
        proc = subprocess.run(ckviz_command(*args), text=True, env=env, timeout=timeout,
                              **streams)  # type: ignore[call-overload]  # fmt: skip
    finally:
        shutil.rmtree(env["TMPDIR"], ignore_errors=True)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def results(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results") / "r.json"
    assert main([*ONE_CELL, *on(redis_server), "--out", str(out)]) == ExitCode.OK
    return out


@pytest.mark.parametrize(
    ("flag", "command"),
    [
        ("--out", lambda r, f: ("report", r, "--out", f)),
        ("--markdown", lambda r, f: ("report", r, "--markdown", f)),
        ("--junit", lambda r, f: (*ONE_CELL, *NOWHERE, "--junit", f)),
        ("--summary-md", lambda r, f: (*ONE_CELL, *NOWHERE, "--summary-md", f)),
        ("--out", lambda r, f: ("hunt", "--discipline", "sfq", *NOWHERE, "--out", f)),
        ("--out", lambda r, f: ("merge", r, "--out", f)),
    ],
)
def test_no_output_overwrites_an_existing_file_without_force(
    flag: str,
    command,
    results: Path,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    existing = tmp_path / "there"
    existing.write_text("someone's file")
    proc = ckviz_here(*command(str(results), str(existing)))  # refused before any work
    assert proc.returncode == ExitCode.USAGE, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line == (f"ckviz: error: {flag}: {existing} already exists; pass --force to "
                    "overwrite it, or give another path")  # fmt: skip
    assert existing.read_text() == "someone's file"


def test_a_symlink_stays_a_link_and_its_target_is_written(results: Path, tmp_path: Path) -> None:
    html, md = tmp_path / "real.html", tmp_path / "real.md"
    md.write_text("old")
    (tmp_path / "link.html").symlink_to(html)  # dangling: the target is created
    (tmp_path / "link.md").symlink_to(md)
    proc = ckviz_here("report", str(results), "--out", str(tmp_path / "link.html"),
                      "--markdown", str(tmp_path / "link.md"), "--force")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for link, target in (("link.html", html), ("link.md", md)):
        assert (tmp_path / link).is_symlink() and os.readlink(tmp_path / link) == str(target)
    assert html.read_text().startswith("<!DOCTYPE html>") and md.read_text().startswith("#")


def test_junit_and_summary_through_symlinks(redis_server: RedisServer, tmp_path: Path) -> None:
    junit, summary = tmp_path / "real.xml", tmp_path / "real.md"
    (tmp_path / "j").symlink_to(junit)
    (tmp_path / "s").symlink_to(summary)
    proc = ckviz_here(*ONE_CELL, *on(redis_server), "--out", str(tmp_path / "r.json"),
                      "--junit", str(tmp_path / "j"), "--summary-md", str(tmp_path / "s"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "j").is_symlink() and (tmp_path / "s").is_symlink()
    assert junit.read_text().startswith("<?xml")
    assert summary.read_text().startswith("**✅ ckviz --check")  # the rules' status leads


def test_dash_is_stdout_and_the_tables_go_to_stderr(redis_server: RedisServer) -> None:
    proc = run(*ONE_CELL, *on(redis_server), "--out", "-")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["complete"] is True  # nothing but the JSON
    assert "worst share/weight" in proc.stderr and "results: stdout" in proc.stderr


def test_out_dev_stdout_into_a_file_is_the_json(redis_server: RedisServer, tmp_path: Path) -> None:
    """`--out /dev/stdout > r.json`: /dev/stdout then names the regular file the shell made;
    it is stdout, written in place, not a file to refuse or to replace."""
    captured = tmp_path / "captured.json"
    with captured.open("w") as stdout:
        proc = run(*ONE_CELL, *on(redis_server), "--out", "/dev/stdout", stdout=stdout)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(captured.read_text())["complete"] is True


def test_report_markdown_to_stdout(results: Path) -> None:
    proc = run("report", str(results), "--markdown", "-")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("## ckviz report") and "ck\\_trickle" in proc.stdout


def test_two_runs_into_one_folder_never_silently_overwrite(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    out, env = tmp_path / "results.json", ckviz_env()
    longer = ("--headless", "--scenario", "ck_skew", "--discipline", "sfq", "--jobs", "1")
    with popen_ckviz(*longer, *on(redis_server), "--out", str(out), env=env) as slow:
        wait_for_line(slow, "[1/3]")  # its --out was checked, and free
        os.killpg(slow.pid, signal.SIGSTOP)  # held mid-run, however fast the rest would be
        try:
            quick = run(*ONE_CELL, *on(redis_server), "--out", str(out))
        finally:
            os.killpg(slow.pid, signal.SIGCONT)
        assert quick.returncode == 0, quick.stderr
        assert slow.wait(timeout=120) == ExitCode.USAGE
        assert slow.stderr is not None
        rest = slow.stderr.read()
    (line,) = [x for x in rest.splitlines() if x.startswith("ckviz: error")]
    saved = tmp_path / f"results.{slow.pid}.json"
    assert line == (f"ckviz: error: --out: {out} was written by someone else while ckviz ran, "
                    f"so it was left alone; saved to {saved}")  # fmt: skip
    assert len(json.loads(out.read_text())["scenarios"][0]["runs"]) == 1  # the quick run's
    assert sum(len(s["runs"]) for s in json.loads(saved.read_text())["scenarios"]) == 3
    shutil.rmtree(env["TMPDIR"], ignore_errors=True)


def test_an_output_fifo_nobody_reads_times_out_in_one_line(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    env = {"CKVIZ_FIFO_TIMEOUT": "0.2"}  # nobody ever reads: how long it waits is not the point
    proc = run(*ONE_CELL, *on(redis_server), "--out", str(fifo), env=env, timeout=60)
    assert proc.returncode == ExitCode.USAGE
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("ckviz: error")]
    assert f"--out: cannot write {fifo} (no reader after 0.2 s); results saved to " in line
    hunt = ("hunt", "--discipline", "sfq", "--examples", "1", "--redis-url", redis_server.url,
            "--prefix", fresh_root(), "--out", str(fifo))  # fmt: skip
    proc = run(*hunt, env=env, timeout=60)
    assert proc.returncode == ExitCode.USAGE
    assert (
        proc.stderr.splitlines()[-1]
        == f"ckviz: error: --out: cannot write {fifo} (no reader after 0.2 s)"
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="a private tmpfs (mount namespace) and mknod need root",
)


def in_private_tmpfs(mount: Path, script: str, size: str = "1m") -> str:
    """`script` (sh) with a fresh tmpfs at `mount`, seen only by it; the mount goes with it."""
    mount.mkdir()
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size={size} tmpfs {mount} && {script}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return proc.stdout


@needs_root
def test_devices_are_written_in_place_never_replaced(
    redis_server: RedisServer, results: Path, tmp_path: Path
) -> None:
    m = tmp_path / "dev"
    ckviz = " ".join(ckviz_command())
    headless = " ".join((*ONE_CELL, *on(redis_server)))
    hunt = (
        f"hunt --discipline sfq --examples 1 --redis-url {redis_server.url} --prefix {fresh_root()}"
    )
    script = f"""
        for d in a b c d e f; do mknod -m 666 {m}/$d c 1 3 || exit 9; done
        {ckviz} report {results} --out {m}/a --markdown {m}/b >/dev/null 2>&1; echo "report $?"
        {ckviz} {headless} --out {m}/c --junit {m}/d --summary-md {m}/e >/dev/null 2>&1
        echo "headless $?"
        {ckviz} {hunt} --out {m}/f >/dev/null 2>&1; echo "hunt $?"
        stat -c '%n %F' {m}/*
    """
    lines = in_private_tmpfs(m, script).splitlines()
    assert lines[:3] == ["report 0", "headless 0", "hunt 0"]
    assert lines[3:] == [f"{m}/{d} character special file" for d in "abcdef"]


@needs_root
@pytest.mark.parametrize("rescue", ["full", "elsewhere"])
def test_a_full_disk_leaves_no_truncated_file(
    redis_server: RedisServer, tmp_path: Path, rescue: str
) -> None:
    m = tmp_path / "small"
    tmpdir = m if rescue == "full" else tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True) if rescue != "full" else None
    ckviz = " ".join(ckviz_command(*ONE_CELL, *on(redis_server), "--out", f"{m}/r.json"))
    script = f"""
        head -c 60000 /dev/zero > {m}/filler 2>/dev/null  # a few KB left: the results need more
        TMPDIR={tmpdir} {ckviz} >/dev/null 2>{m}.err; echo "exit $?"; tail -1 {m}.err
        ls -A {m}
    """
    exit_line, error, *left = in_private_tmpfs(m, script, size="64k").splitlines()
    assert exit_line == "exit 2"
    assert error.startswith(
        f"ckviz: error: --out: cannot write {m}/r.json (No space left on device)"
    )
    assert left == ["filler"]  # no r.json, no temp file, no truncated rescue copy
    if rescue == "full":
        assert error.endswith("; results not saved")
    else:
        saved = Path(error.split("results saved to ")[1].removesuffix(" instead"))
        assert saved.parent == tmpdir and json.loads(saved.read_text())["complete"] is True
