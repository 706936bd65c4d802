"""The CLI people expect: --version, --help everywhere (and what the top one lists), flags of
--headless refused without it, `validate` on matrices with warnings, honest treatments."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ckviz import __version__
from ckviz.commands.help_text import ENVIRONMENT, EXAMPLES, EXIT_MEANINGS
from ckviz.commands.root import HEADLESS_ONLY, build_parser
from ckviz.disciplines.registry import FACTORIES, SUMMARIES
from ckviz.errors import ExitCode
from ckviz.inputs import scenario_files
from ckviz.sim.cell.session import new_namespace
from ckviz.sim.step_clock.runner import STEP_DISCIPLINES
from ckviz.store.server import RedisServer
from tests.functional.cli_support import exits


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = exits(["--version"], capsys)
    assert (code, err) == (0, "")
    first, server = out.splitlines()
    assert first == f"ckviz {__version__}" and server.startswith("redis-server: ")


@pytest.mark.parametrize(
    "command", ["validate", "report", "hunt", "merge", "stress", "capture", "whatif"]
)
def test_every_subcommand_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = exits([command, "--help"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith(f"usage: ckviz {command} ")


def test_help_lists_disciplines_files_exit_codes_environment_and_examples(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = exits(["--help"], capsys)
    assert code == 0
    assert set(SUMMARIES) == set(FACTORIES) | set(STEP_DISCIPLINES)
    for name, summary in SUMMARIES.items():  # one line each
        assert re.search(rf"^  {re.escape(name)} +{re.escape(summary)}$", out, re.M), name
    for name in scenario_files.bundled_names() + scenario_files.matrix_names():
        assert re.search(rf"[ ,]{re.escape(name)}(,|$)", out, re.M), name
    assert set(EXIT_MEANINGS) == set(ExitCode)
    for code_value in ExitCode:
        assert re.search(rf"^  {int(code_value)} +\S", out, re.M), code_value
    for variable, _ in ENVIRONMENT:
        assert f"  {variable}  " in out
    assert len(EXAMPLES) == 3
    for command, _ in EXAMPLES:
        assert f"  {command}\n" in out
        build_parser().parse_args(command.split()[1:])  # each example's flags exist


@pytest.mark.parametrize("dest", sorted(HEADLESS_ONLY))
def test_headless_flags_without_headless_are_refused(
    dest: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flag = HEADLESS_ONLY[dest]
    action = next(a for a in build_parser()._actions if a.dest == dest)
    value = [] if action.nargs == 0 else [{"--shard": "1/2", "--seeds": "a"}.get(flag, "2")]
    if flag in ("--out", "--junit", "--summary-md", "--matrix"):
        value = [str(tmp_path / "x.json")] if flag != "--matrix" else ["caps"]
    code, _, err = exits([flag, *value], capsys)  # the app would have opened here
    assert code == ExitCode.USAGE
    assert err.splitlines() == [
        f"ckviz: error: {flag} is for --headless (the terminal app ignores it); add "
        "--headless to run the matrix, or drop it to open the app"
    ]


def test_issue_example_no_longer_opens_the_app(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = exits(["--matrix", "caps", "--out", "z.json", "--check"], capsys)
    assert code == ExitCode.USAGE and "--matrix is for --headless" in err
    assert not Path("z.json").exists()


MATRIX = """
scenarios = ["ck_skew"]
seeds = ["seed-a"]
{body}
"""


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('disciplines = ["sfq"]', None),
        ('disciplines = ["sfqq"]', "disciplines: unknown discipline 'sfqq'"),
        (
            'disciplines = ["sfq"]\n[[treatments]]\nlabel = "x"\ndiscipline = "baseline"',
            "(top level): give either 'disciplines' or [[treatments]], not both",
        ),
        ('disciplines = ["sfq"]\nmax_count = 0', "max_count: Input should be greater than or"),
    ],
)
def test_validate_checks_matrix_files(
    body: str, problem: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(MATRIX.format(body=body))
    code, out, err = exits(["validate", str(path)], capsys)
    if problem is None:
        assert (code, out, err) == (0, f"{path}: ok\n", "")
    else:
        assert code == ExitCode.USAGE and out == ""
        (line,) = err.splitlines()
        assert line.startswith(f"{path}: ") and problem in line, line


def test_validate_warns_about_a_scenario_headless_would_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "slow.toml"
    path.write_text(
        'env_limit = 1\nclock_limit_ms = 600000\n[[keys]]\nname = "k"\nruns = 2000\narrival = "immediate"\n'
        "hold_ms_mean = 1000\n"
    )
    code, out, err = exits(["validate", str(path)], capsys)
    assert code == 0 and out == f"{path}: ok\n"
    (line,) = err.splitlines()
    assert line.startswith(f"{path}: warning: --headless would refuse it: scenario 'slow'")
    assert "cannot finish within the 600000 ms logical limit" in line
    matrix = tmp_path / "m.toml"
    matrix.write_text(f'scenarios = ["{path}"]\nseeds = ["seed-a"]\ndisciplines = ["sfq"]\n')
    code, out, err = exits(["validate", str(matrix)], capsys)
    assert code == 0 and "warning: --headless would refuse it" in err


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--matrix", "caps", "--per-key-cap", "2"],
            "--per-key-cap: matrix 'caps' lists its own [[treatments]]",
        ),
        (
            ["--matrix", "caps", "--total-cap", "2"],
            "--total-cap: matrix 'caps' lists its own [[treatments]]",
        ),
        (
            ["--matrix", "caps", "--discipline", "sfq"],
            "--discipline: matrix 'caps' lists its own [[treatments]]",
        ),
        (["--seeds", ""], "--seeds: empty seed in '' (expected e.g. seed-a,seed-b)"),
        (["--seeds", "a,,b"], "--seeds: empty seed in 'a,,b'"),
        (
            ["--matrix", "micro", "--per-key-cap", "2"],
            "--per-key-cap: scenario 'micro_skew' runs in the step harness",
        ),
        (["--shard", "3/2"], "--shard: K must be in 1..N, got 3/2"),
        (["--shard", "x"], "--shard: expected K/N (e.g. 2/4), got 'x'"),
        (["--shard", "1/2", "--check"], "--shard: --check and --junit need the whole matrix"),
    ],
)
def test_dishonest_combinations_are_refused(
    args: list[str], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "r.json")
    code, _, err = exits(
        ["--headless", *args, "--out", out, "--redis-url", "unix:///nowhere"], capsys
    )
    assert code == ExitCode.USAGE  # refused before any server is tried
    (shown,) = err.splitlines()
    assert shown.startswith(f"ckviz: error: {line}"), shown
    assert not Path(out).exists()


def test_flag_caps_are_recorded_and_shown(
    redis_server: RedisServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    args = [
        "--headless",
        "--scenario",
        "ck_skew",
        "--seeds",
        "seed-a",
        "--discipline",
        "sfq",
        "--discipline",
        "stride",
        "--discipline",
        "codel-sfq",
        "--per-key-cap",
        "2",
        "--redis-url",
        redis_server.url,
        "--prefix",
        root,
        "--out",
        str(out),
    ]
    code, table, _ = exits(args, capsys)
    assert code == 0
    results = json.loads(out.read_text())
    assert (results["matrix"]["per_key_cap"], results["matrix"]["total_cap"]) == (2, None)
    runs = results["scenarios"][0]["runs"]
    assert [(r["per_key_cap"], r["total_cap"]) for r in runs] == [(2, None)] * 3
    assert "caps per-key/total" in table and table.count(" 2/- ") == 3
    # sfq, stride and codel-sfq coincide here: the rows say so and the footnote says why
    assert "stride (= sfq)" in table and "codel-sfq (= sfq)" in table
    flat = " ".join(table.split())
    assert "Identical rows (stride = sfq, codel-sfq = sfq)" in flat
    assert "stride is sfq with every clock step scaled by 10^6" in flat
    assert "worst share/weight: of the dequeues made while two or more keys" in flat
    assert "Jain: Jain's index" in flat and "Mean wait: dequeue time minus arrival" in flat
