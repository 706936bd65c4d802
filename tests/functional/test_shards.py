"""Sweeps across machines: `--shard K/N` runs a deterministic slice of the matrix, and
`ckviz merge` joins the slices into the file the whole run writes (timing fields aside)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from ckviz.store.server import RedisServer
from tests.functional.cli_support import headless, without_timing

# a millisecond scenario (two seeds), a step-harness one (once) and a trace (once): cells of
# every kind, and some scenarios absent from some shards
MATRIX = """
scenarios = ["ck_trickle", "micro_skew", "ck_balanced"]
seeds = ["seed-a", "seed-b"]
disciplines = ["baseline", "sfq", "vtime"]
"""


@pytest.mark.slow
def test_merged_shards_equal_the_whole_run(redis_server: RedisServer, tmp_path: Path) -> None:
    matrix = tmp_path / "sweep.toml"
    matrix.write_text(MATRIX)
    assert headless(redis_server, matrix, tmp_path / "whole.json") == 0
    parts = [tmp_path / f"part{k}.json" for k in (1, 2, 3)]
    for k, part in enumerate(parts, start=1):
        assert headless(redis_server, matrix, part, "--shard", f"{k}/3") == 0
    sizes = [sum(len(s["runs"]) for s in json.loads(p.read_text())["scenarios"]) for p in parts]
    assert sizes == [5, 5, 4]  # 14 cells dealt out in turn (sfq skips the step scenario)
    shards = [json.loads(p.read_text())["shard"] for p in parts]
    assert [(s["index"], s["count"], s["cells"]) for s in shards] == [
        (1, 3, 5),
        (2, 3, 5),
        (3, 3, 4),
    ]
    assert {s["matrix_cells"] for s in shards} == {14}
    merged = tmp_path / "all.json"
    # given in any order
    assert main(["merge", str(parts[2]), str(parts[0]), str(parts[1]), "--out", str(merged)]) == 0
    whole = json.loads((tmp_path / "whole.json").read_text())
    joined = json.loads(merged.read_text())
    assert without_timing(joined) == without_timing(whole)
    # byte for byte once the timing fields are equal
    text = merged.read_text()
    for field in ("wall_clock_s", "wall_clock_ms"):
        assert field in text
    assert _zero_timing(text) == _zero_timing((tmp_path / "whole.json").read_text())
    # a slice cannot --check (a rule compares treatments another slice ran); the merged file
    # can, after the fact: ck_trickle's sfq rule passes, its drr rule is skipped (not run)
    md = tmp_path / "all.md"
    assert main(["check", str(merged)]) == 0
    assert main(["report", "--check", str(merged), "--markdown", str(md)]) == 0
    assert md.read_text().startswith("**✅ ckviz --check (all): passed (2 rules, 1 skipped)**")
    assert (
        "| PASSED | ck\\_trickle | sfq light\\_key\\_mean\\_wait better\\_than baseline"
        in md.read_text()
    )


def _zero_timing(text: str) -> str:
    import re

    return re.sub(r'"(wall_clock_s|wall_clock_ms)": [0-9.e+-]+', r'"\1": 0', text)


def test_merge_refuses_a_missing_a_doubled_or_a_foreign_shard(
    redis_server: RedisServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matrix = tmp_path / "small.toml"
    matrix.write_text(
        'scenarios = ["ck_trickle"]\nseeds = ["seed-a"]\ndisciplines = ["baseline", "sfq"]\n'
    )
    one, two = tmp_path / "1.json", tmp_path / "2.json"
    assert headless(redis_server, matrix, one, "--shard", "1/2") == 0
    assert headless(redis_server, matrix, two, "--shard", "2/2") == 0
    other = tmp_path / "other.json"
    assert headless(redis_server, matrix, other, "--shard", "2/2", "--seeds", "seed-b") == 0
    capsys.readouterr()
    out = tmp_path / "all.json"
    cases = [
        ([one], "merge: shard 2 missing (need 1..2"),
        ([one, one, two], "merge: shard 1 given twice"),
        ([one, other], f"{other}: a different matrix, flags or shard count than {one}"),
        ([one, tmp_path / "sweep.toml"], f"{tmp_path / 'sweep.toml'}: cannot read"),
        ([one, matrix], f"{matrix}: not a ckviz results file"),
    ]
    for files, line in cases:
        assert main(["merge", *map(str, files), "--out", str(out)]) == ExitCode.USAGE
        (shown,) = capsys.readouterr().err.splitlines()
        assert shown.startswith(f"ckviz: error: {line}"), shown
        assert not out.exists()
    assert main(["merge", str(two), str(one), "--out", str(out)]) == 0
    assert main(["merge", str(two), str(one), "--out", str(out)]) == ExitCode.USAGE  # exists
    assert main(["merge", str(two), str(one), "--out", str(out), "--force"]) == 0
