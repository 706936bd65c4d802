"""Matrix sweeps: one scenario once per value of one parameter, each variant a scenario of the
results; bad sweeps are one line naming the matrix file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ckviz.errors import UsageError
from ckviz.inputs import scenario_files
from ckviz.model.matrix import MatrixSpec
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, ckviz_here


def matrix_file(tmp_path: Path, sweep: str, scenarios: str = "") -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(
        f'{scenarios}seeds = ["seed-a"]\ndisciplines = ["baseline"]\n'
        f'[sweep]\nscenario = "ck_skew"\n{sweep}\n',
        encoding="utf-8",
    )
    return path


def test_a_key_field_sweep_makes_one_named_scenario_per_value(tmp_path: Path) -> None:
    matrix = scenario_files.load_matrix(str(matrix_file(tmp_path, "heavy.runs = [10, 30]")))
    assert matrix.sweep is not None
    variants = scenario_files.swept(matrix.sweep, str(tmp_path / "sweep.toml"))
    assert [v.name for v in variants] == ["ck_skew[heavy.runs=10]", "ck_skew[heavy.runs=30]"]
    heavy = [next(k for k in v.keys if k.name == "heavy").runs for v in variants]
    assert heavy == [10, 30]
    assert [v.total_runs for v in variants] == [10 + 60, 30 + 60]


def test_a_scenario_field_sweep(tmp_path: Path) -> None:
    matrix = scenario_files.load_matrix(str(matrix_file(tmp_path, "env_limit = [2, 8]")))
    assert matrix.sweep is not None
    variants = scenario_files.swept(matrix.sweep, str(tmp_path / "sweep.toml"))
    assert [(v.name, v.env_limit) for v in variants] == [
        ("ck_skew[env_limit=2]", 2),
        ("ck_skew[env_limit=8]", 8),
    ]


@pytest.mark.parametrize(
    ("sweep", "says"),
    [
        ("heavy.runs = [0]", "heavy.runs = 0: keys[0] (heavy).runs"),
        ("nobody.runs = [1]", "'nobody' is not a [[keys]] name of 'ck_skew'"),
        ("heavy.bogus = [1]", "'bogus' is not a field of a key"),
        ("name = [1]", "'name' is not a numeric scenario field"),
        ("heavy.runs = [1.5]", "heavy.runs = 1.5"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_matrix(tmp_path: Path, sweep: str, says: str) -> None:
    path = matrix_file(tmp_path, sweep)
    matrix = scenario_files.load_matrix(str(path))
    assert matrix.sweep is not None
    with pytest.raises(UsageError) as caught:
        scenario_files.swept(matrix.sweep, str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: sweep: ") and says in message and "\n" not in message


@pytest.mark.parametrize(
    ("sweep", "says"),
    [
        ('heavy.runs = "x"', "'heavy.runs' must be a list of 1 to 50 numbers"),
        ("heavy.runs = []", "must be a list of 1 to 50 numbers"),
        ("heavy.runs = [1, 1]", "lists 1 twice"),
        ("env_limit = [2]\nheavy.runs = [3]", "needs exactly one swept parameter"),
        ("", "needs exactly one swept parameter"),
    ],
)
def test_a_malformed_sweep_is_refused_when_the_matrix_is_read(
    tmp_path: Path, sweep: str, says: str
) -> None:
    with pytest.raises(UsageError, match="sweep") as caught:
        scenario_files.load_matrix(str(matrix_file(tmp_path, sweep)))
    assert says in str(caught.value)


def test_a_matrix_needs_scenarios_or_a_sweep() -> None:
    with pytest.raises(ValueError, match="needs 'scenarios' or a \\[sweep\\]"):
        MatrixSpec(disciplines=["baseline"])


@pytest.mark.slow
def test_headless_runs_the_listed_scenarios_then_the_sweep(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    path = matrix_file(tmp_path, "heavy.runs = [5, 20]", scenarios='scenarios = ["ck_balanced"]\n')
    out = tmp_path / "r.json"
    done = ckviz(
        "--headless", "--matrix", str(path), "--out", str(out), "--redis-url", redis_server.url
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    names = [s["name"] for s in results["scenarios"]]
    assert names == ["ck_balanced", "ck_skew[heavy.runs=5]", "ck_skew[heavy.runs=20]"]
    dequeued = [s["runs"][0]["metrics"]["total_dequeued"] for s in results["scenarios"][1:]]
    assert dequeued == [5 + 60, 20 + 60]


@pytest.mark.slow
def test_a_bad_sweep_exits_2_with_one_line(tmp_path: Path) -> None:
    done = ckviz_here("--headless", "--matrix", str(matrix_file(tmp_path, "heavy.runs = [0]")))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "sweep: heavy.runs = 0" in done.stderr


def test_the_docs_sweep_example_is_a_valid_matrix(tmp_path: Path) -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"
    example = re.search(
        r"```toml\n(seeds = .*?\[sweep\].*?)```", docs.read_text(encoding="utf-8"), re.S
    )
    assert example is not None
    path = tmp_path / "curve.toml"
    path.write_text(example.group(1), encoding="utf-8")
    matrix = scenario_files.load_matrix(str(path))
    assert matrix.sweep is not None and matrix.sweep.parameter() == (
        "light.count",
        [10, 100, 1000, 10000],
    )
    names = [s.name for s in scenario_files.swept(matrix.sweep, str(path))]
    assert names[-1] == "ck_many_keys[light.count=10000]"
