"""Bad input, tried systematically: each gets one error line and exit 2, before any server
starts, or works correctly. docs/TRUST.md lists the outcomes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from tests.functional.trust_support import ckviz_command, ckviz_env, run_ckviz, stderr_lines

A = '[[keys]]\nname = "a"\n'
FILES = {  # file text -> what the one error line says
    "malformed": ("keys = [\n", "not valid TOML"),
    "empty": ("", "keys: needs at least one [[keys]] table (or a [trace] to replay)"),
    "comments-only": ("# nothing here\n", "keys: needs at least one [[keys]] table"),
    "no-keys": ("keys = []\n", "keys: needs at least one [[keys]] table"),
    "keys-a-string": ('keys = "a"\n', "keys: Input should be a valid list"),
    "keys-a-table": ('[keys]\nname = "a"\nruns = 1\n', "keys: Input should be a valid list"),
    "runs-word": (A + 'runs = "ten"\n', "(a).runs: Input should be a valid integer"),
    "runs-quoted": (A + 'runs = "10"\n', "(a).runs: Input should be a valid integer"),
    "runs-bool": (A + "runs = true\n", "(a).runs: Input should be a valid integer"),
    "runs-fraction": (A + "runs = 1.5\n", "(a).runs: Input should be a valid integer"),
    "runs-float": (A + "runs = 2.0\n", "(a).runs: Input should be a valid integer"),
    "runs-zero": (A + "runs = 0\n", "(a).runs: Input should be greater than or equal to 1"),
    "runs-negative": (A + "runs = -3\n", "(a).runs: Input should be greater than or equal to 1"),
    "runs-absurd": (
        A + "runs = 500001\n",
        "(a).runs: Input should be less than or equal to 500000",
    ),
    "rate-zero": (
        A + "runs = 3\nrate_per_sec = 0\n",
        "rate_per_sec: Input should be greater than 0",
    ),
    "rate-negative": (
        A + "runs = 3\nrate_per_sec = -1\n",
        "rate_per_sec: Input should be greater than 0",
    ),
    "rate-nan": (
        A + "runs = 3\nrate_per_sec = nan\n",
        "rate_per_sec: Input should be a finite number",
    ),
    "rate-inf": (
        A + "runs = 3\nrate_per_sec = inf\n",
        "rate_per_sec: Input should be a finite number",
    ),
    "hold-zero": (
        A + "runs = 3\nhold_ms_mean = 0\n",
        "hold_ms_mean: Input should be greater than 0",
    ),
    "hold-negative": (
        A + "runs = 3\nhold_ms_mean = -5.0\n",
        "hold_ms_mean: Input should be greater than 0",
    ),
    "weight-zero": (A + "runs = 3\nweight = 0\n", "weight: Input should be greater than 0"),
    "weight-nan": (A + "runs = 3\nweight = nan\n", "weight: Input should be a finite number"),
    "start-negative": (
        A + "runs = 3\nstart_at_ms = -1\n",
        "start_at_ms: Input should be greater than or equal to 0",
    ),
    "env-zero": (
        "env_limit = 0\n" + A + "runs = 3\n",
        "env_limit: Input should be greater than or equal to 1",
    ),
    "env-quoted": (
        'env_limit = "4"\n' + A + "runs = 3\n",
        "env_limit: Input should be a valid integer",
    ),
    "count-zero": (
        A + "runs = 3\ncount = 0\n",
        "(a).count: Input should be greater than or equal to 1",
    ),
    "a-million-keys": (
        A + "runs = 1\ncount = 1000000\n",
        "(a).count: Input should be less than or equal to 200000",
    ),
    "many-families": (
        "".join(f'[[keys]]\nname = "f{i}"\nruns = 1\ncount = 100000\n' for i in range(10)),
        "1000000 keys; at most 200000",
    ),
    "too-many-runs": (
        '[[keys]]\nname = "f"\nruns = 1000\ncount = 501\n',
        "501000 runs in all; at most 500000",
    ),
    "unknown-key-field": (
        A + 'runs = 3\ncolour = "red"\n',
        "(a).colour: Extra inputs are not permitted",
    ),
    "unknown-top-level": (
        'colour = "red"\n' + A + "runs = 3\n",
        "colour: Extra inputs are not permitted",
    ),
    "unknown-arrival": (
        A + 'runs = 3\narrival = "burst"\n',
        "arrival: Input should be 'immediate' or 'poisson'",
    ),
    "empty-name": (
        '[[keys]]\nname = ""\nruns = 3\n',
        "name: String should have at least 1 character",
    ),
    "newline-in-name": (
        '[[keys]]\nname = "a\\nb"\nruns = 3\n',
        "(a\\nb).name: a key name may not contain control characters",
    ),
    "reserved-suffix": (
        '[[keys]]\nname = "a:currentConcurrency"\nruns = 3\n',
        "may not end with ':currentConcurrency'",
    ),
    "duplicate-name": (A + "runs = 3\n" + A + "runs = 3\n", "key 'a' is declared twice"),
    "count-collides": (
        A + "runs = 3\ncount = 2\n" + '[[keys]]\nname = "a-1"\nruns = 1\n',
        "key 'a-1' is declared twice",
    ),
    "unknown-light-key": (
        'light_key = "zed"\n' + A + "runs = 3\n",
        "light_key 'zed' is not one of the keys",
    ),
    "per-key-cap-zero": (
        "[caps]\nper_key = 0\n" + A + "runs = 3\n",
        "caps.per_key: Input should be greater than or equal to 1",
    ),
    "never-finishes": (
        "clock_limit_ms = 600000\n"
        + A
        + 'runs = 100000\narrival = "immediate"\nhold_ms_mean = 50\n',
        "cannot finish within the 600000 ms logical limit",
    ),
    "fail-rate-above-one": (
        A + "runs = 3\nfail_rate = 2\n",
        "(a).fail_rate: Input should be less than or equal to 1",
    ),
    "retry-bounds-crossed": (
        "[retry]\nmin_timeout_ms = 5000\nmax_timeout_ms = 10\n" + A + "runs = 3\n",
        "retry: min_timeout_ms (5000) is above max_timeout_ms (10)",
    ),
    "arrives-too-late": (
        "clock_limit_ms = 600000\n" + A + "runs = 5\nrate_per_sec = 0.001\n",
        "cannot finish within the 600000 ms logical limit: run a~0#",
    ),
    "clock-limit-zero": (
        "clock_limit_ms = 0\n" + A + "runs = 3\n",
        "clock_limit_ms: Input should be greater than or equal to 1",
    ),
    # a count past what an int holds made a traceback (issue 35 item 5, lineup.py:78)
    "consumers-mix-huge-count": (
        'consumers = "vtime:99999999999999999999999"\n' + A + "runs = 3\n",
        "consumers: 'vtime:99999999999999999999999': at most 64 consumers",
    ),
    "consumers-table-huge-count": (
        "consumers = { vtime = 99999999999999999999999 }\n" + A + "runs = 3\n",
        "consumers: 'vtime:99999999999999999999999': at most 64 consumers",
    ),
    "consumers-mix-superscript-count": (
        'consumers = "vtime:\u00b2"\n' + A + "runs = 3\n",
        "consumers: 'vtime:\u00b2': the count after ':' must be a whole number",
    ),
    "clock-limit-past-a-week": (
        "clock_limit_ms = 604800001\n" + A + "runs = 3\n",
        "clock_limit_ms: Input should be less than or equal to 604800000",
    ),
}


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert lines[0].startswith("ckviz: error: ")
    return lines[0]


@pytest.mark.parametrize("name", FILES)
def test_bad_scenario_file(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, needle = FILES[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "r.json"
    code = main(["--headless", "--scenario", str(path), "--seeds", "seed-a", "--out", str(out)])
    line = one_error_line(capsys)
    assert code == ExitCode.USAGE
    assert needle in line
    assert str(path) in line or f"scenario '{name}'" in line  # the file, or the scenario by name
    assert not out.exists()  # rejected before a cell ran


def test_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe not text")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    cases = [
        (binary, "cannot read"),
        (folder, "scenario file not found"),
        (tmp_path / "absent.toml", "scenario file not found"),
    ]
    for path, needle in cases:
        code = main(["--headless", "--scenario", str(path), "--out", str(tmp_path / "r.json")])
        assert code == ExitCode.USAGE and needle in one_error_line(capsys)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--max-count", "-1"], "--max-count: must be at least 1"),
        (["--max-count", "abc"], "--max-count: invalid int value"),
        (["--jobs", "0"], "--jobs: must be at least 1"),
        (["--per-key-cap", "0"], "--per-key-cap: must be at least 1"),
        (["--total-cap", "-2"], "--total-cap: must be at least 1"),
        (["--clock-limit-ms", "0"], "--clock-limit-ms: must be 1 to 604800000 ms (a week), got 0"),
        (["--clock-limit-ms", "1e9"], "--clock-limit-ms: invalid int value"),
        (["--clock-limit-ms", "604800001"], "--clock-limit-ms: must be 1 to 604800000 ms"),
        (["--seeds", ",,"], "--seeds: empty seed"),
        (["--seeds", " "], "--seeds: empty seed"),
        (["--discipline", "sfq", "--discipline", "sfq"], "'sfq' given twice"),
        (["--scenario", "ck_skew", "--scenario", "ck_skew"], "'ck_skew' given twice"),
        (["--prefix", "bad prefix"], "--prefix: 'bad prefix' is not a usable prefix"),
        (["--out", "."], "--out: . is a directory"),
        (["--redis", "nowhere"], "--redis: invalid choice"),
        # counts no int holds, digits that are not 0-9 (issue 35 item 5)
        (["--consumers", "vtime:99999999999999999999999"], "--consumers: 'vtime:9999999999"),
        (["--consumers", "vtime:" + "9" * 5000], "at most 64 consumers"),
        (["--consumers", "vtime:\u00b2"], "the count after ':' must be a whole number"),
        (["--shard", "\u00b2/3"], "--shard: expected K/N (e.g. 2/4)"),
        (["--shard", "1/" + "9" * 5000], "--shard: at most 10000 shards"),
    ],
)
def test_bad_flags(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--headless", *args]) == ExitCode.USAGE
    assert needle in one_error_line(capsys)


@pytest.mark.slow
def test_a_bad_timeout_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    proc = run_ckviz(
        "--headless",
        "--scenario",
        "ck_skew",
        "--out",
        str(tmp_path / "r.json"),
        env=ckviz_env(CKVIZ_REDIS_TIMEOUT="soon"),
    )
    assert proc.returncode == ExitCode.USAGE
    (line,) = stderr_lines(proc)
    assert "CKVIZ_REDIS_TIMEOUT: expected seconds" in line and "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", ["malformed", "runs-bool", "newline-in-name", "never-finishes"])
@pytest.mark.slow
def test_the_real_command_prints_one_line(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.toml"
    path.write_text(FILES[name][0], encoding="utf-8")
    proc = run_ckviz("--headless", "--scenario", str(path), "--out", str(tmp_path / "r.json"))
    assert proc.returncode == ExitCode.USAGE
    assert len(stderr_lines(proc)) == 1 and "Traceback" not in proc.stderr
    assert FILES[name][1] in proc.stderr


ODD_KEYS = [
    "tenant:42",
    "tenant",
    "tenant:4",
    "café-☕",
    "a:b:c",
    ":lead",
    "trail:",
    "*[glob]?",
    " spaced out ",
    "ckIndex",
    "{org:o-ck}",
    "x~0#1",
    "日本語のキー",
]


@pytest.mark.slow
def test_unicode_and_colons_in_keys_work_end_to_end(tmp_path: Path) -> None:
    runs = {name: 3 + i % 4 for i, name in enumerate(ODD_KEYS)}
    blocks = [
        f"[[keys]]\nname = {json.dumps(name, ensure_ascii=False)}\nruns = {n}\n"
        f'arrival = "{"immediate" if i % 2 else "poisson"}"\nhold_ms_mean = 20\n'
        for i, (name, n) in enumerate(runs.items())
    ]
    path = tmp_path / "odd.toml"
    path.write_text("env_limit = 3\n" + "".join(blocks), encoding="utf-8")
    out = tmp_path / "r.json"
    args = (
        "--headless",
        "--scenario",
        str(path),
        "--discipline",
        "baseline",
        "--discipline",
        "sfq",
        "--discipline",
        "drr",
        "--seeds",
        "seed-a,seed-b",
        "--max-count",
        "2",
        "--per-key-cap",
        "1",
        "--out",
        str(out),
    )
    proc = run_ckviz(*args)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["complete"] is True
    (scenario,) = results["scenarios"]
    assert set(scenario["weights"]) == set(ODD_KEYS)
    assert len(scenario["runs"]) == 6
    for run in scenario["runs"]:
        columns = run["metrics"]["per_key"]
        per_key = dict(zip(columns["key"], columns["dequeued"], strict=True))
        assert per_key == runs  # every run dequeued, under the right name
        assert run["metrics"]["total_dequeued"] == sum(runs.values())


DEEP = {
    "array": "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "table": A + "runs = 1\nx = " + "{a=" * 900 + "1" + "}" * 900 + "\n",
}


@pytest.mark.parametrize("shape", DEEP)
@pytest.mark.parametrize("how", ["validate", "headless", "matrix", "app"])
def test_deeply_nested_toml_is_one_line(
    shape: str, how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(DEEP[shape], encoding="utf-8")
    args = {
        "validate": ["validate", str(path)],
        "headless": ["--headless", "--scenario", str(path)],
        "matrix": ["--headless", "--matrix", str(path)],
        "app": [str(path)],
    }[how]
    assert main(args) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert f"{path}: not valid TOML: arrays or tables nested too deeply" in err


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_an_unwritable_stdout_or_stderr_is_one_line(stream: str, tmp_path: Path) -> None:
    env = ckviz_env()
    args = ("--headless", "--scenario", "ck_trickle", "--out", str(tmp_path / "r.json"))
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            ckviz_command(*args),
            env=env,
            text=True,
            timeout=60,
            **{stream: full, ("stderr" if stream == "stdout" else "stdout"): subprocess.PIPE},
        )
    shutil.rmtree(env["TMPDIR"], ignore_errors=True)
    assert proc.returncode == ExitCode.USAGE
    if stream == "stdout":  # stderr still works: one line there
        assert proc.stderr.splitlines() == [
            "ckviz: error: cannot write to stdout (No space left on device)"
        ]
    else:  # nowhere to say it: the exit code does
        assert proc.stdout == ""
    assert not (tmp_path / "r.json").exists()  # refused before any work


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--seeds", "seed-a,\x1b[31mred"], "--seeds: seed '\\x1b[31mred' contains control"),
        (["--seeds", "a\nb"], "--seeds: seed 'a\\nb' contains control characters"),
        (["--seed", "x\x07"], "--seed: seed 'x\\x07' contains control characters"),
    ],
)
def test_control_characters_in_seeds_are_rejected(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--headless", "--scenario", "ck_skew", *args]) == ExitCode.USAGE
    line = one_error_line(capsys)
    assert needle in line and "\x1b" not in line and "\x07" not in line


def test_control_characters_in_a_scenario_name_are_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "evil\x1b[2J.toml"  # the name is the file stem
    path.write_text(A + "runs = 3\n", encoding="utf-8")
    assert main(["--headless", "--scenario", str(path)]) == ExitCode.USAGE
    line = one_error_line(capsys)
    assert "name: a scenario name may not contain control characters" in line
    assert "\x1b" not in line


def test_a_huge_echoed_value_is_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.toml"
    path.write_text(f'[[keys]]\nname = "{"k" * 100_000}"\nruns = 3\n', encoding="utf-8")
    assert main(["--headless", "--scenario", str(path)]) == ExitCode.USAGE
    line = one_error_line(capsys)
    assert len(line) < 600
    assert "String should have at most 200 characters" in line  # the reason survives the cut
    assert main(["--headless", "--seeds", "a,\x01" + "s" * 100_000]) == ExitCode.USAGE
    assert len(one_error_line(capsys)) < 600
