"""What goes into results and reports: never a bare NaN or Infinity (JSON.parse rejects the
file), weights that cannot produce one refused up front, a trace run_id that would collide
with a generated one refused, invariant lines with long values cut, `--jobs` bounded, and the
Markdown summary showing the strings it did not write as text."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.model.invariants import BrokenInvariant
from ckviz.model.json_text import readable_json
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz_here
from tests.functional.trust_support import refused_here

TINY = """env_limit = 2
[[keys]]
name = "a"
runs = 20
weight = 1e-320
[[keys]]
name = "b"
runs = 20
"""


def strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"bare {constant} in JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
def test_a_weight_whose_fair_share_underflows_is_refused(tmp_path: Path) -> None:
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    for args in (("validate", str(scenario)), ("--headless", "--scenario", str(scenario))):
        proc = refused_here(*args)
        assert proc.returncode == ExitCode.USAGE
        assert proc.stderr.splitlines()[-1].endswith(
            "keys[0] (a).weight: must be at least 1e-06 (weights are relative; scale them up)"
        )
    trace = tmp_path / "t.csv"
    trace.write_text("key,arrival_ms,hold_ms,weight\na,0,5,1e-9\nb,0,5,1\n")
    proc = refused_here("validate", str(trace))
    assert (
        proc.stderr
        == f"{trace}:2: weight: must be at least 1e-06 (weights are relative; scale them up)\n"
    )


def test_the_smallest_weight_runs_and_its_results_are_strict_json(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    scenario = tmp_path / "light.toml"
    scenario.write_text(TINY.replace("1e-320", "1e-6"))
    out = tmp_path / "r.json"
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    code = main(["--headless", "--scenario", str(scenario), "--seeds", "seed-a",
                 "--discipline", "sfq", "--discipline", "baseline", "--redis-url",
                 redis_server.url, "--prefix", root, "--out", str(out)])  # fmt: skip
    assert code == ExitCode.OK
    results = strict_json(out.read_text())
    assert isinstance(results, dict) and results["complete"] is True


def test_a_non_finite_figure_is_written_as_null() -> None:
    text = readable_json({"a": [1.5, math.nan, "x"], "b": math.inf, "c": -math.inf, "d": [1]})
    assert strict_json(text) == {"a": [1.5, None, "x"], "b": None, "c": None, "d": [1]}


@pytest.mark.slow
def test_a_trace_run_id_equal_to_a_generated_one_is_refused(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    # key a's first run has no run_id, so ckviz names it a~0#0: the id b's run also claims
    trace.write_text(
        "key,arrival_ms,hold_ms,run_id\na,0,10,\nb,0,10,a~0#0\na,1,10,x\nb,2,10,a~0#1\n"
    )
    proc = refused_here("validate", str(trace))
    assert proc.returncode == ExitCode.USAGE
    assert proc.stderr == (f"{trace}:3: run_id: 'a~0#0' is the id ckviz gives run 0 of key "
                           "'a', which has no run_id; rename one of them\n")  # fmt: skip
    trace.write_text("key,arrival_ms,hold_ms,run_id\na,0,10,a~0#0\nb,0,10,b~0#0\n")
    assert ckviz_here("validate", str(trace)).returncode == ExitCode.OK  # its own


def test_invariant_lines_cut_long_quoted_values_to_80_characters() -> None:
    key, run = "k" * 300, "r" * 200
    line = str(BrokenInvariant("one-place", 5, [key, "b"], f"run {run!r} is held twice"))
    assert line == (f"invariant one-place broken at t=5 ms (keys: '{'k' * 80}'... (+220 "
                    f"characters), 'b'): run '{'r' * 80}'... (+120 characters) is held twice")  # fmt: skip


def test_jobs_is_bounded_before_anything_runs() -> None:
    proc = refused_here(
        "--headless", "--jobs", "100000", "--redis-url", "unix:///nonexistent/x.sock"
    )
    assert proc.returncode == ExitCode.USAGE
    (line,) = proc.stderr.splitlines()
    assert line.startswith("ckviz: error: --jobs: at most ") and line.endswith(", got 100000")


@pytest.fixture(scope="module")
def one_cell(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cell's results, read by each case below (which changes a copy)."""
    out = tmp_path_factory.mktemp("one-cell") / "r.json"
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    assert main(["--headless", "--scenario", "ck_trickle", "--discipline", "sfq", "--seeds",
                 "seed-a", "--redis-url", redis_server.url, "--prefix", root, "--out",
                 str(out)]) == ExitCode.OK  # fmt: skip
    return out


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("ckviz_version", "[0.1](http://x.example)", "ckviz \\[0.1\\](http://x.example)"),
        ("redis", "<img src=x onerror=alert(1)>", "redis \\<img src=x onerror=alert(1)\\>"),
        ("redis", "*7.0* &amp; ~~x~~", "redis \\*7.0\\* \\&amp; \\~\\~x\\~\\~"),
    ],
)
def test_the_markdown_summary_escapes_what_it_did_not_write(
    one_cell: Path, tmp_path: Path, field: str, value: str, shown: str
) -> None:
    out = tmp_path / "r.json"
    data = json.loads(one_cell.read_text())
    if field == "redis":
        data["redis"]["version"] = value
    else:
        data[field] = value
    out.write_text(json.dumps(data))
    proc = ckviz_here("report", str(out), "--markdown", "-")
    assert proc.returncode == ExitCode.OK, proc.stderr
    (summary,) = [line for line in proc.stdout.splitlines() if line.startswith("- r: ")]
    assert shown in summary
