"""Scenario and matrix files: bundled lookup, count expansion, and every validation error path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ckviz.commands import validate
from ckviz.errors import UsageError
from ckviz.inputs import scenario_files
from ckviz.model.matrix import MatrixSpec

# The reference's caps matrix, in its order.
CAPS_TREATMENTS = [
    "baseline",
    "per-key-cap",
    "total-cap",
    "total+per-key",
    "sfq",
    "drr",
    "per-key-cap+sfq",
    "total+per-key+sfq",
]

GOOD = """
env_limit = 4
light_key = "light"

[[keys]]
name = "heavy"
count = 3
runs = 5
arrival = "immediate"

[[keys]]
name = "light"
runs = 2
weight = 2.5
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_every_bundled_scenario_and_matrix_is_valid() -> None:
    names = scenario_files.bundled_names()
    assert {
        "ck_skew",
        "ck_balanced",
        "ck_trickle",
        "ck_sybil",
        "ck_heavy_idle",
        "ck_weighted",
    } <= set(names)
    for name in names:
        assert scenario_files.problems_in(scenario_files.resolve(name)) == [], name
        assert scenario_files.load_any(name).name == name
    for name in scenario_files.matrix_names():
        scenario_files.load_matrix(name)


def test_light_keys_of_bundled_scenarios() -> None:
    lights = {n: scenario_files.load(n).light_key for n in ("ck_skew", "ck_trickle", "ck_sybil")}
    assert lights == {"ck_skew": "light-1", "ck_trickle": "trickle-1", "ck_sybil": "light"}


def test_count_stamps_out_numbered_keys(tmp_path: Path) -> None:
    sc = scenario_files.load(str(write(tmp_path, GOOD)))
    assert [k.name for k in sc.expanded_keys()] == ["heavy-0", "heavy-1", "heavy-2", "light"]
    assert sc.total_runs == 17
    assert sc.weights() == {"heavy-0": 1.0, "heavy-1": 1.0, "heavy-2": 1.0, "light": 2.5}
    assert sc.name == "s"


def test_sybil_has_twenty_heavy_keys() -> None:
    sc = scenario_files.load("ck_sybil")
    keys = [k.name for k in sc.expanded_keys()]
    assert keys[:2] == ["heavy-0", "heavy-1"] and keys[19] == "heavy-19" and len(keys) == 21


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("[[keys]]\nname='a'\nruns=0\n", "keys[0] (a).runs", "greater than or equal to 1"),
        (
            "[[keys]]\nname='a'\nruns=1\nrate_per_sec=-1\n",
            "keys[0] (a).rate_per_sec",
            "greater than 0",
        ),
        (
            "[[keys]]\nname='a'\nruns=1\nhold_ms_mean=0\n",
            "keys[0] (a).hold_ms_mean",
            "greater than 0",
        ),
        ("[[keys]]\nname='a'\nruns='many'\n", "keys[0] (a).runs", "valid integer"),
        (
            "[[keys]]\nname='a'\nruns=1\narrival='burst'\n",
            "keys[0] (a).arrival",
            "'immediate' or 'poisson'",
        ),
        ("[[keys]]\nname='a'\nruns=1\ncolour='red'\n", "keys[0] (a).colour", "Extra inputs"),
        ("[[keys]]\nname='a'\nruns=1\nweight=0\n", "keys[0] (a).weight", "greater than 0"),
        (
            "[[keys]]\nname='a'\nruns=1\ncount=0\n",
            "keys[0] (a).count",
            "greater than or equal to 1",
        ),
        ("[[keys]]\nname=''\nruns=1\n", "keys[0].name", "at least 1 character"),
        ("keys = []\n", "keys", "needs at least one [[keys]] table (or a [trace] to replay)"),
        ("env_limit = 4\n", "keys", "needs at least one [[keys]] table"),
        ("env_limit = 0\n[[keys]]\nname='a'\nruns=1\n", "env_limit", "greater than or equal to 1"),
        ("light_key='x'\n[[keys]]\nname='a'\nruns=1\n", "(top level)", "light_key 'x' is not one"),
        (
            "[[keys]]\nname='a'\nruns=1\n[[keys]]\nname='a'\nruns=1\n",
            "(top level)",
            "declared twice",
        ),
        (
            "[[keys]]\nname='a'\ncount=3\nruns=1\n[[keys]]\nname='a-1'\nruns=1\n",
            "(top level)",
            "'a-1' is declared twice",
        ),
        (
            "[[keys]]\nname='a:currentConcurrency'\nruns=1\n",
            "keys[0] (a:currentConcurrency).name",
            "may not end with",
        ),
        (
            "[caps]\nper_key=0\n[[keys]]\nname='a'\nruns=1\n",
            "caps.per_key",
            "greater than or equal to 1",
        ),
        (
            "[[keys]]\nname='a'\nruns=1\n[[expect]]\ndiscipline='sfq'\nmetric='light_key_mean_wait'\n",
            "expect[0]",
            "needs exactly one of",
        ),
        (
            "[[keys]]\nname='a'\nruns=1\n[[expect]]\ndiscipline='sfq'\nmetric='speed'\nat_most=1\n",
            "expect[0].metric",
            "Input should be",
        ),
    ],
)
def test_validation_errors_name_file_path_and_reason(
    tmp_path: Path, text: str, where: str, reason: str
) -> None:
    path = write(tmp_path, text)
    problems = scenario_files.problems_in(path)
    assert problems, text
    assert any(p.startswith(f"{path}: {where}: ") and reason in p for p in problems), problems
    with pytest.raises(UsageError):
        scenario_files.load(str(path))


def test_malformed_toml_and_unreadable_files(tmp_path: Path) -> None:
    bad = write(tmp_path, "[[keys]\nname=")
    (problem,) = scenario_files.problems_in(bad)
    assert problem.startswith(f"{bad}: not valid TOML:")
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    (problem,) = scenario_files.problems_in(binary)
    assert problem.startswith(f"{binary}: cannot read")


def test_one_problem_per_line_for_several_problems(tmp_path: Path) -> None:
    path = write(tmp_path, "[[keys]]\nname='a'\nruns=0\nrate_per_sec=0\n")
    assert len(scenario_files.problems_in(path)) == 2


def test_matrix_validation() -> None:
    with pytest.raises(ValueError, match="needs 'disciplines' or"):
        MatrixSpec(scenarios=["ck_skew"])
    caps = scenario_files.load_matrix("caps")
    labels = [t.name for t in caps.all_treatments()]
    assert labels == CAPS_TREATMENTS
    assert caps.scenarios == ["ck_skew", "ck_trickle", "ck_sybil", "ck_heavy_idle"]


@pytest.mark.slow
def test_validate_command(tmp_path: Path) -> None:
    good = write(tmp_path, GOOD, "good.toml")
    bad = write(tmp_path, "[[keys]]\nname='a'\nruns=0\nrate_per_sec=0\n", "bad.toml")
    ok = subprocess.run(
        [sys.executable, "-m", "ckviz", "validate", str(good)], capture_output=True, text=True
    )
    assert ok.returncode == 0 and f"{good}: ok" in ok.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "ckviz", "validate", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"{bad}: keys[0] (a).") for line in lines)
    assert "Traceback" not in proc.stderr


def test_named_keys_are_the_expanded_keys() -> None:
    """Names and their declaring entries, as expanded_keys (one copy per key) gives them."""
    sc = scenario_files.load("ck_many_keys")
    named = sc.named_keys()
    expanded = sc.expanded_keys()
    assert [n for n, _ in named] == [k.name for k in expanded]
    fields = ("runs", "arrival", "rate_per_sec", "hold_ms_mean", "start_at_ms", "weight")
    for (_, spec), key in zip(named, expanded, strict=True):
        assert all(getattr(spec, f) == getattr(key, f) for f in fields)


def test_a_mistyped_bundled_name_gets_a_did_you_mean() -> None:
    with pytest.raises(UsageError, match=r"unknown scenario 'ck_skwe' \(did you mean ck_skew\?"):
        scenario_files.resolve("ck_skwe")


def test_validate_takes_bundled_names_and_suggests_for_a_typo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert validate.main(["ck_skew", "-q"]) == 0  # a bundled name, as --scenario takes it
    assert validate.main(["ck_skwe"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "did you mean ck_skew?" in err[0]


EVERY_STAGE = """
env_limit = 0

[[keys]]
name = "a"
runs = 2

[[keys]]
name = "a"
runs = 0

[[keys]]
name = "b"
runs = 1

[[keys]]
name = "caf\\u00e9"
runs = 1

[[keys]]
name = "cafe\\u0301"
runs = 1

[[expect]]
discipline = "nosuch"
metric = "makespan_ms"
at_most = 1
"""


def test_validate_reports_every_stage_s_problems_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a field error (pydantic), a key declared twice (the cross-field check, which pydantic
    # skips once a field is bad), a rule naming no discipline and a look-alike warning (the
    # checks on the loaded scenario): all in one run, each a line naming file and field
    path = write(tmp_path, EVERY_STAGE)
    assert validate.main([str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    problems = [line for line in err if "warning" not in line]
    assert problems[0].startswith(f"{path}: env_limit: ")
    assert problems[1].startswith(f"{path}: keys[1] (a).runs: ")
    assert f"{path}: (top level): key 'a' is declared twice" in problems
    assert f"{path}: expect[0].discipline: no discipline or treatment 'nosuch'" in err[-1]
    assert len(problems) == 4, err
    assert sum("look alike" in line for line in err) == 1, err


def test_a_toml_syntax_error_is_reported_alone_and_says_so(tmp_path: Path) -> None:
    (problem,) = scenario_files.problems_in(write(tmp_path, "env_limit = 0\n[[keys]\n"))
    assert "not valid TOML" in problem and "nothing else" in problem


def test_a_field_set_aside_adds_no_line_of_its_own_and_its_table_is_still_read(
    tmp_path: Path,
) -> None:
    # keys set aside must not add "needs at least one [[keys]]"; a bad [trace] field leaves
    # its path to be checked
    (problem,) = scenario_files.problems_in(write(tmp_path, 'keys = 3\nlight_key = "x"\n'))
    assert problem.endswith("keys: Input should be a valid list")
    traced = write(tmp_path, '[trace]\npath = "../t.csv"\nbogus = 1\n', "t.toml")
    found = scenario_files.problems_in(traced)
    assert f"{traced}: trace.bogus: Extra inputs are not permitted" in found
    assert any("leads outside the scenario's folder" in line for line in found), found
