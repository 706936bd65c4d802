"""The CLI people expect: a mistyped command or flag is told what it probably meant and runs
nothing, no flag is taken by a prefix of its name, -q/--quiet, help that counts nothing that
can go stale, and piped tables printed whole."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ckviz.commands.redis_options import server_choice
from ckviz.errors import ExitCode
from ckviz.store.server import RedisServer
from tests.functional.cli_support import ckviz, exits


def test_a_mistyped_subcommand_says_did_you_mean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = exits(["reprot", "r.json"], capsys)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err.splitlines() == [
        "ckviz: error: unknown command 'reprot' (did you mean 'ckviz report'?); commands: "
        "validate, report, check, merge, hunt, stress, serve, replay, watch, capture, whatif, "
        "or a scenario for the app"
    ]
    for word in ("valdiate", "hnut", "stres", "merg"):
        code, _, err = exits([word], capsys)
        assert code == ExitCode.USAGE and "did you mean 'ckviz " in err, word
    (tmp_path / "stres").write_text("x")  # a file of that name is the user's scenario
    code, _, err = exits(["stres", "--discipline", "nope"], capsys)
    assert code == ExitCode.USAGE and "did you mean" not in err


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["--headles"], "--headless"),
        (["--headless", "--scenari", "ck_skew"], "--scenario"),
        (["--headless", "--disciplin", "sfq"], "--discipline"),
        (["hunt", "--discipline", "sfq", "--example", "3"], "--examples"),
        (["stress", "--second", "1"], "--seconds"),
        (["merge", "a.json", "--out", "b.json", "--forc"], "--force"),
        (["report", "r.json", "--markdow", "r.md"], "--markdown"),
        (["validate", "x.toml", "--quie"], "--quiet"),
    ],
)
def test_no_flag_is_abbreviated_and_a_typo_is_named(
    args: list[str],
    meant: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before, `--headles` ran the whole default matrix (argparse took it for --headless)."""
    monkeypatch.chdir(tmp_path)
    code, out, err = exits(args, capsys)
    assert (code, out) == (ExitCode.USAGE, "")
    (line,) = err.splitlines()
    assert "unrecognized arguments: " in line and line.endswith(f"(did you mean {meant}?)")
    assert list(tmp_path.iterdir()) == []  # nothing ran, nothing written


@pytest.mark.parametrize("command", ["", "hunt", "stress", "serve"])
def test_one_rule_for_where_the_server_comes_from(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line before the environment: --redis-url, then --redis, then
    CKVIZ_REDIS_URL, then the embedded server; the same in every command that writes."""
    import importlib

    module = importlib.import_module(f"ckviz.commands.{command or 'root'}")
    base = ["--discipline", "sfq"] if command == "hunt" else []

    def choice(*args: str) -> tuple[str, str | None, str]:
        chosen = server_choice(module.build_parser().parse_args([*base, *args]))
        return chosen.mode, chosen.url, chosen.source

    monkeypatch.delenv("CKVIZ_REDIS_URL", raising=False)
    assert choice() == ("embedded", None, "CKVIZ_REDIS_URL")
    monkeypatch.setenv("CKVIZ_REDIS_URL", "redis://env:1/0")
    assert choice() == ("embedded", "redis://env:1/0", "CKVIZ_REDIS_URL")
    assert choice("--redis", "embedded") == ("embedded", None, "--redis")
    assert choice("--redis", "docker") == ("docker", None, "--redis")
    assert choice("--redis-url", "redis://flag:1/0", "--redis", "docker")[1:] == (
        "redis://flag:1/0",
        "--redis-url",
    )


def test_help_counts_nothing_that_can_go_stale(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = exits(["--help"], capsys)
    assert code == 0
    numbers = r"two|three|four|five|six|seven|eight|nine|ten"
    assert re.search(rf"\ball ({numbers})\b", out) is None
    assert "from the list below" in out
    for sub in ("validate", "report", "merge", "hunt", "stress", "serve", "replay"):
        assert re.search(rf"^  ckviz {sub} ", out, re.M), sub


@pytest.mark.parametrize("to_stdout", [False, True])
@pytest.mark.slow
def test_quiet_prints_nothing_but_writes_the_results(
    redis_server: RedisServer, tmp_path: Path, to_stdout: bool
) -> None:
    out = tmp_path / "r.json"
    args = ["--headless", "-q", "--scenario", "ck_trickle", "--discipline", "sfq"]
    proc = ckviz(
        *args,
        "--seeds",
        "seed-a",
        "--redis-url",
        redis_server.url,
        "--out",
        "-" if to_stdout else str(out),
    )
    # with `--out -`, stdout holds the results and nothing else (no tables on stderr either)
    written = proc.stdout if to_stdout else out.read_text()
    assert (proc.returncode, proc.stdout if not to_stdout else "", proc.stderr) == (0, "", "")
    assert json.loads(written)["complete"] is True
    if not to_stdout:  # validate's quiet once, not again for each --out
        scenario = Path(__file__).parents[2] / "scenarios" / "ck_trickle.toml"
        quiet = ckviz("validate", "--quiet", str(scenario), timeout=60)
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


LONG_KEY = "tenant-" + "x" * 110 + "-end"


@pytest.mark.slow
def test_piped_tables_print_every_figure_whole(redis_server: RedisServer, tmp_path: Path) -> None:
    """Before, a pipe got 132 columns and the tables cut names and figures with '…'."""
    scenario = tmp_path / "wide.toml"
    scenario.write_text(
        f'env_limit = 2\n[[keys]]\nname = "{LONG_KEY}"\nruns = 40\n'
        '[[keys]]\nname = "b"\nruns = 5\n',
        encoding="utf-8",
    )
    proc = ckviz(
        "--headless",
        "--scenario",
        str(scenario),
        "--discipline",
        "baseline",
        "--discipline",
        "sfq",
        "--discipline",
        "drr",
        "--seeds",
        "seed-a",
        "--redis-url",
        redis_server.url,
        "--out",
        str(tmp_path / "r.json"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "…" not in proc.stdout
    assert LONG_KEY in proc.stdout
    assert "\x1b[" not in proc.stdout  # plain: no colours in a pipe
