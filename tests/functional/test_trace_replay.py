"""Trace replay as a user runs it: --headless on a CSV, JSON Lines and a TOML [trace] (the
bundled incident), bad traces through the CLI (the app stepping a trace: tests/tui)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.model.results import Results
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, ckviz_here

pytestmark = pytest.mark.slow

QUICK = ("--discipline", "baseline", "--discipline", "sfq")
SHORT_CLOCK = ("--clock-limit-ms", "600000")  # the clock's limit before it became a setting


def on(redis_server: RedisServer) -> tuple[str, ...]:
    """The session's server, under a root of the run's own: ckviz in this process starts none."""
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    return ("--redis-url", redis_server.url, "--prefix", root)


def noisy_trace(folder: Path) -> Path:
    """A flood of 60 runs from one key at 0 ms; a light key trickles in every 40 ms."""
    lines = ["key,arrival_ms,hold_ms"]
    lines += [f"flood,{i % 3},{20 + i % 7}" for i in range(60)]
    lines += [f"light,{5 + 40 * i},10" for i in range(8)]
    path = folder / "noisy.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_headless_replays_a_csv_trace_once_per_treatment(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = ckviz("--headless", "--scenario", str(noisy_trace(tmp_path)), *QUICK, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    (scenario,) = Results.model_validate_json(out.read_text()).scenarios
    assert scenario.name == "noisy" and scenario.weights == {"flood": 1.0, "light": 1.0}
    assert [(r.treatment, r.seed) for r in scenario.runs] == [
        ("baseline", "seed-a"),
        ("sfq", "seed-a"),
    ]
    assert all(r.metrics.total_dequeued == 68 for r in scenario.runs)
    light = {
        r.treatment: next(k.mean_wait for k in r.metrics.per_key if k.key == "light")
        for r in scenario.runs
    }
    assert (
        light["sfq"] < light["baseline"] / 2
    )  # the flood starves the light key under baseline only


def test_json_lines_and_csv_of_the_same_runs_give_the_same_results(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    csv_path = noisy_trace(tmp_path)
    rows = [line.split(",") for line in csv_path.read_text().splitlines()[1:]]
    jsonl = tmp_path / "noisy.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps({"key": k, "arrival_ms": int(a), "hold_ms": int(h)}) + "\n"
            for k, a, h in rows
        )
    )
    outs = []
    for path in (csv_path, jsonl):
        out = tmp_path / f"{path.suffix[1:]}.json"
        proc = ckviz_here(
            "--headless", "--scenario", str(path), *QUICK, *on(redis_server), "--out", str(out)
        )
        assert proc.returncode == 0, proc.stderr
        data = Results.model_validate_json(out.read_text())
        outs.append(
            [r.metrics.model_dump(exclude={"wall_clock_ms"}) for r in data.scenarios[0].runs]
        )
    assert outs[0] == outs[1]


def test_the_bundled_incident_trace_passes_its_rule(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    proc = ckviz_here(
        "--headless",
        "--scenario",
        "incident_trace",
        *QUICK,
        *on(redis_server),
        "--check",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        "PASSED  incident_trace: sfq light_key_mean_wait better_than baseline (margin 0.5)"
        in proc.stdout
    )
    (scenario,) = Results.model_validate_json(out.read_text()).scenarios
    assert len(scenario.weights) == 301 and all(
        r.metrics.total_dequeued == 3254 for r in scenario.runs
    )


def test_a_bad_trace_is_one_line_with_its_line_number(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("key,arrival_ms,hold_ms\na,0,5\na,3,soon\na,4,x\n", encoding="utf-8")
    out = tmp_path / "r.json"
    proc = ckviz_here("--headless", "--scenario", str(bad), "--out", str(out))
    assert proc.returncode == 2 and not out.exists()
    (line,) = proc.stderr.strip().splitlines()
    assert (
        line
        == f"ckviz: error: {bad}:3: hold_ms: not a number (and 1 more problems: ckviz validate {bad} lists them)"
    )
    proc = ckviz_here("validate", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"{bad}:3: hold_ms: not a number",
        f"{bad}:4: hold_ms: not a number",
    ]


def test_a_trace_too_long_for_the_logical_clock_is_refused_up_front(tmp_path: Path) -> None:
    long = tmp_path / "long.csv"
    long.write_text("key,arrival_ms,hold_ms\na,0,5\na,700000,5\n", encoding="utf-8")
    out = tmp_path / "r.json"
    proc = ckviz_here("--headless", "--scenario", str(long), "--out", str(out), *SHORT_CLOCK)
    assert proc.returncode == 2 and "600000 ms logical limit" in proc.stderr
    assert not out.exists()


def test_a_trace_past_ten_minutes_replays_within_the_default_day(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The clock stops at a day unless told otherwise: a run arriving at 2 hours is served,
    and the results record no clock limit (none was set)."""
    late = tmp_path / "late.csv"
    late.write_text("key,arrival_ms,hold_ms\na,0,5\nb,7200000,5\n", encoding="utf-8")
    out = tmp_path / "r.json"
    proc = ckviz_here(
        "--headless", "--scenario", str(late), "--discipline", "baseline", *on(redis_server),
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    (run,) = data["scenarios"][0]["runs"]
    assert run["metrics"]["total_dequeued"] == 2 and run["metrics"]["makespan_ms"] >= 7200000
    assert "clock_limit_ms" not in data["matrix"]
    proc = ckviz_here(
        "--headless", "--scenario", str(late), "--out", str(out), "--force", *SHORT_CLOCK
    )
    assert proc.returncode == 2 and "the 600000 ms logical limit: run " in proc.stderr
    assert "arrives at 7200000 ms" in proc.stderr
    limit = ("--clock-limit-ms", "7200005")
    proc = ckviz_here(
        "--headless", "--scenario", str(late), *on(redis_server), "--out", str(out), "--force",
        *limit,
    )  # fmt: skip
    assert (
        proc.returncode == 0 and json.loads(out.read_text())["matrix"]["clock_limit_ms"] == 7200005
    )


def test_a_matrix_sets_the_clock_limit_of_its_scenarios(tmp_path: Path) -> None:
    late = tmp_path / "late.csv"
    late.write_text("key,arrival_ms,hold_ms\na,0,5\nb,7200000,5\n", encoding="utf-8")
    matrix = tmp_path / "m.toml"
    matrix.write_text(
        f'scenarios = ["{late}"]\nseeds = ["seed-a"]\ndisciplines = ["baseline"]\n'
        "clock_limit_ms = 600000\n",
        encoding="utf-8",
    )
    proc = ckviz_here("--headless", "--matrix", str(matrix), "--out", str(tmp_path / "r.json"))
    assert proc.returncode == 2 and "the 600000 ms logical limit: run " in proc.stderr
