"""A real sweep against the embedded Redis: each variant's results entry says what it is
(`sweep`), a listed scenario's entry says nothing new, `--shard` and `ckviz merge` carry it,
and the report of the merged file plots the sweep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.inputs import scenario_files
from ckviz.store.server import RedisServer
from tests.functional.cli_support import headless, without_timing

MATRIX = """
scenarios = ["ck_balanced"]
seeds = ["seed-a"]
disciplines = ["baseline", "sfq"]

[sweep]
scenario = "ck_skew"
heavy.runs = [5, 20]
"""


@pytest.mark.slow
def test_a_real_sweep_is_recorded_sharded_merged_and_plotted(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    matrix = tmp_path / "sweep.toml"
    matrix.write_text(MATRIX)
    whole = tmp_path / "whole.json"
    assert headless(redis_server, matrix, whole) == 0
    entries = json.loads(whole.read_text())["scenarios"]
    assert [e["name"] for e in entries] == [
        "ck_balanced",
        "ck_skew[heavy.runs=5]",
        "ck_skew[heavy.runs=20]",
    ]
    assert "sweep" not in entries[0]  # a listed scenario's entry is as before
    assert [e["sweep"] for e in entries[1:]] == [
        {"scenario": "ck_skew", "parameter": "heavy.runs", "value": v} for v in (5, 20)
    ]
    parts = [tmp_path / f"part{k}.json" for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        assert headless(redis_server, matrix, part, "--shard", f"{k}/2") == 0
    merged = tmp_path / "all.json"
    assert main(["merge", str(parts[1]), str(parts[0]), "--out", str(merged)]) == 0
    joined = json.loads(merged.read_text())
    assert without_timing(joined) == without_timing(json.loads(whole.read_text()))
    assert [e.get("sweep", {}).get("value") for e in joined["scenarios"]] == [None, 5, 20]

    html, md = tmp_path / "r.html", tmp_path / "r.md"
    assert main(["report", str(merged), "--out", str(html), "--markdown", str(md)]) == 0
    page, text = html.read_text(), md.read_text()
    assert page.count('data-figure="sweep-') == 4  # worst share, Jain, light wait, cost
    assert "### Sweep: ck\\_skew over heavy.runs" in text
    baseline_5 = entries[1]["runs"][0]
    assert baseline_5["treatment"] == "baseline"
    share = baseline_5["metrics"]["contention_worst_share_over_weight"]
    assert f"| 5 | baseline | {share:.5f} |" in text


def test_the_bundled_scaling_matrix_is_the_one_the_docs_run() -> None:
    matrix = scenario_files.load_matrix("scaling")
    assert matrix.sweep is not None and matrix.sweep.scenario == "ck_many_keys"
    assert matrix.sweep.parameter() == ("light.count", [10, 100, 1000])
    assert matrix.disciplines == ["baseline", "sfq", "vtime"] and len(matrix.seeds) == 1
    docs = (Path(__file__).resolve().parents[2] / "docs" / "scenarios.md").read_text(
        encoding="utf-8"
    )
    command = "uv run ckviz --headless --matrix scaling --out s.json && uv run ckviz report s.json"
    assert command in docs
