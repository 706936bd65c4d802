"""Results files of both layouts: version 2 (per-key figures column-wise) as written, and
version 1 (a row per key) as ckviz wrote them before, read by report, check and merge alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.model.json_text import readable_json
from ckviz.model.results import Results
from ckviz.store.server import RedisServer
from tests.functional.cli_support import in_shards

pytestmark = pytest.mark.xdist_group("test_results_layouts")

# a plain scenario with [[expect]] rules, and one with the run lifecycle (its rows' nested
# `lifecycle` object becomes a group of columns)
MATRIX = """
scenarios = ["ck_trickle", "life_dead_letter"]
seeds = ["seed-a"]
disciplines = ["baseline", "sfq"]
"""


def as_version_1(new: Path, old: Path) -> Path:
    """`new`'s results as ckviz wrote them before columns: rows per key, version 1."""
    results = Results.model_validate(json.loads(new.read_text()))
    old.write_text(readable_json({**results.model_dump(mode="json"), "schema_version": 1}))
    return old


@pytest.fixture(scope="module")
def shards(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return in_shards(redis_server, tmp_path_factory.mktemp("layouts"), MATRIX)


def test_per_key_figures_are_written_as_columns(shards: list[Path]) -> None:
    data = json.loads(shards[0].read_text())
    assert data["schema_version"] == 2
    runs = [run for s in data["scenarios"] for run in s["runs"]]
    lifecycle = [run for s in data["scenarios"] for run in s["runs"] if s["name"].startswith("l")]
    assert runs and lifecycle
    for run in runs:
        columns = run["metrics"]["per_key"]
        keys = columns["key"]
        assert keys and len(set(keys)) == len(keys)
        flat = {name: v for name, v in columns.items() if not isinstance(v, dict)}
        assert {len(v) for v in flat.values()} == {len(keys)}
        assert sum(columns["dequeued"]) == run["metrics"]["total_dequeued"]
    group = lifecycle[0]["metrics"]["per_key"]["lifecycle"]
    assert {len(v) for v in group.values()} == {len(lifecycle[0]["metrics"]["per_key"]["key"])}
    assert sum(group["dead_lettered"]) > 0  # the doomed key's runs
    text = shards[0].read_text()
    assert '"per_key": [' not in text and '"per_key_first_seed": [' not in text


def test_both_layouts_read_back_the_same(shards: list[Path], tmp_path: Path) -> None:
    old = as_version_1(shards[0], tmp_path / "old.json")
    assert '"per_key": [' in old.read_text()  # rows, as before
    new_results = Results.model_validate(json.loads(shards[0].read_text()))
    old_results = Results.model_validate(json.loads(old.read_text()))
    assert old_results.schema_version == 1 and new_results.schema_version == 2
    assert old_results.model_copy(update={"schema_version": 2}) == new_results
    lives = [k.lifecycle for s in new_results.scenarios for r in s.runs for k in r.metrics.per_key]
    assert any(lives)


def test_merge_report_and_check_read_the_old_layout(shards: list[Path], tmp_path: Path) -> None:
    old = [as_version_1(p, tmp_path / f"old{k}.json") for k, p in enumerate(shards, start=1)]
    for folder in "abc":  # the same file name in each: the report labels them alike
        (tmp_path / folder).mkdir()
    merged_new, merged_old = tmp_path / "a" / "all.json", tmp_path / "b" / "all.json"
    assert main(["merge", *map(str, shards), "--out", str(merged_new), "-q"]) == 0
    # an old slice beside a new one: the digests are of the figures, not of their layout
    assert main(["merge", str(old[0]), str(shards[1]), "--out", str(merged_old), "-q"]) == 0
    assert merged_old.read_text() == merged_new.read_text().replace(
        _wall(merged_new), _wall(merged_old)
    )
    merged_v1 = as_version_1(merged_new, tmp_path / "c" / "all.json")
    reports = []
    for results in (merged_new, merged_v1):
        md = results.with_suffix(".md")
        assert main(["report", "--check", str(results), "--markdown", str(md)]) == 0
        reports.append(md.read_text())
        assert main(["check", str(results)]) == 0
    assert reports[0] == reports[1]
    assert "| PASSED | ck\\_trickle |" in reports[0]


def _wall(path: Path) -> str:
    return f'"wall_clock_s": {json.loads(path.read_text())["wall_clock_s"]}'


def test_columns_that_do_not_line_up_are_one_line_errors(
    shards: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(shards[0].read_text())
    data["scenarios"][0]["runs"][0]["metrics"]["per_key"]["wait_p99"].pop()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["report", str(bad), "--markdown", str(tmp_path / "r.md")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "scenarios.0.runs.0.metrics.per_key" in line
    assert "column 'wait_p99' has" in line and "values for" in line
