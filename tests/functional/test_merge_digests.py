"""`ckviz merge` refuses shards that do not add up (issue 20 item 7): each shard records a
digest of its matrix and of its figures, and how many cells it and the matrix hold. Doubled
or deleted cells, an edited figure, another Redis version or other scenario weights, a seed
or treatment the matrix does not have: one line naming the file, exit 2, nothing written."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.headless.shards import figures_digest
from ckviz.model.results import Results
from ckviz.store.server import RedisServer
from tests.functional.cli_support import headless, in_shards

pytestmark = pytest.mark.xdist_group("test_merge_digests")

MATRIX = (
    'scenarios = ["ck_trickle"]\nseeds = ["seed-a", "seed-b"]\ndisciplines = ["baseline", "sfq"]\n'
)

Edit = Callable[[dict[str, Any]], None]


def _double(part: dict[str, Any]) -> None:
    runs = part["scenarios"][0]["runs"]
    runs.append(copy.deepcopy(runs[0]))


def _delete(part: dict[str, Any]) -> None:
    part["scenarios"][0]["runs"].pop()


def _figure(part: dict[str, Any]) -> None:
    part["scenarios"][0]["runs"][0]["metrics"]["contention_jain"] = 0.5


def _weights(part: dict[str, Any]) -> None:
    weights = part["scenarios"][0]["weights"]
    weights[next(iter(weights))] = 9.0


def _seed(part: dict[str, Any]) -> None:
    part["scenarios"][0]["runs"][0]["seed"] = "seed-zz"


def _treatment(part: dict[str, Any]) -> None:
    part["scenarios"][0]["runs"][0]["treatment"] = "drrr"


def _version(part: dict[str, Any]) -> None:
    part["redis"]["version"] = "7.0.15"


def _old(part: dict[str, Any]) -> None:
    part["shard"] = {"index": part["shard"]["index"], "count": part["shard"]["count"]}


def _redigested(edit: Edit) -> Edit:
    """`edit`, then the figures digest written again: a shard as a run on another definition
    (or a careful hand) would write it, so the checks past the digest are reached."""

    def run(part: dict[str, Any]) -> None:
        edit(part)
        results = Results.model_validate(part)
        part["shard"]["figures_digest"] = figures_digest(results.scenarios, results.complete)

    return run


CASES: list[tuple[str, Edit, str]] = [
    ("doubled", _double, "its figures do not match the digest it was written with"),
    ("deleted", _delete, "its figures do not match the digest"),
    ("edited figure", _figure, "its figures do not match the digest"),
    ("no digests", _old, "records no shard digests (written by an older ckviz)"),
    ("doubled, redigested", _redigested(_double), "holds 3 runs, but its slice has 2 cells"),
    ("deleted, redigested", _redigested(_delete), "holds 1 runs, but its slice has 2 cells"),
    ("weights", _redigested(_weights), "scenario 'ck_trickle' has other key weights than in"),
    ("seed", _redigested(_seed), "names seed 'seed-zz', not one of its matrix's"),
    ("treatment", _redigested(_treatment), "names treatment 'drrr', not one of its matrix's"),
    ("redis version", _version, "ran on Redis 7.0.15, not"),
]


@pytest.fixture(scope="module")
def shards(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return in_shards(redis_server, tmp_path_factory.mktemp("shards"), MATRIX)


def test_untouched_shards_merge(shards: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "all.json"
    assert main(["merge", *map(str, shards), "--out", str(out)]) == 0
    assert sum(len(s["runs"]) for s in json.loads(out.read_text())["scenarios"]) == 4
    recorded = json.loads(shards[0].read_text())["shard"]
    assert recorded["cells"] == 2 and recorded["matrix_cells"] == 4
    assert recorded["matrix_digest"] == json.loads(shards[1].read_text())["shard"]["matrix_digest"]


@pytest.mark.parametrize(("what", "edit", "said"), CASES, ids=[c[0] for c in CASES])
def test_merge_refuses_a_damaged_shard(
    shards: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    edit: Edit,
    said: str,
) -> None:
    damaged = tmp_path / "part2.json"
    part = json.loads(shards[1].read_text())
    edit(part)
    damaged.write_text(json.dumps(part))
    out = tmp_path / "all.json"
    capsys.readouterr()
    assert main(["merge", str(shards[0]), str(damaged), "--out", str(out)]) == ExitCode.USAGE
    (line,) = capsys.readouterr().err.splitlines()
    assert said in line, line
    assert not out.exists()


def test_a_shard_of_another_definition_is_refused(
    redis_server: RedisServer,
    shards: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Same names, same flags, another scenario definition: the matrix digests differ."""
    scenario = tmp_path / "ck_trickle.toml"
    scenario.write_text(
        'env_limit = 2\n[[keys]]\nname = "a"\nruns = 5\n[[keys]]\nname = "b"\nruns = 5\n'
    )
    matrix = tmp_path / "matrix.toml"  # named as the shards' matrix: only its scenario differs
    matrix.write_text(MATRIX.replace('"ck_trickle"', f'"{scenario}"'))
    other = tmp_path / "other2.json"
    if headless(redis_server, matrix, other, "--shard", "2/2") != 0:
        pytest.skip("a matrix names bundled scenarios only")
    capsys.readouterr()
    code = main(["merge", str(shards[0]), str(other), "--out", str(tmp_path / "all.json")])
    assert code == ExitCode.USAGE
    (line,) = capsys.readouterr().err.splitlines()
    assert "a different matrix" in line or "other key weights" in line, line
