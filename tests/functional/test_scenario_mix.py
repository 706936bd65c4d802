"""A mixed rollout given in a scenario file (`consumers = "vtime:2,baseline:1"`), on the real
embedded Redis: under each treatment its flag-on consumers run the treatment's discipline, the
run is the one the flag's mix makes, and a bad value is one line naming the file and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.errors import ExitCode
from tests.functional.cli_support import without_timing
from tests.functional.test_bad_input import one_error_line

KEYS = """
[[keys]]
name = "bulk"
runs = 40
arrival = "immediate"
hold_ms_mean = 25

[[keys]]
name = "trickle"
runs = 8
arrival = "poisson"
rate_per_sec = 25
hold_ms_mean = 25
"""


def write(tmp_path: Path, consumers: str, name: str = "mixed") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f"env_limit = 3\nconsumers = {consumers}\n{KEYS}", encoding="utf-8")
    return path


def headless(*args: str) -> dict[str, object]:
    out = Path(args[args.index("--out") + 1])
    assert main(["--headless", "--seeds", "seed-a", "--quiet", *args]) == 0
    results = without_timing(json.loads(out.read_text()))
    assert isinstance(results, dict)
    return results


def runs_of(results: dict[str, object]) -> list[dict[str, object]]:
    (scenario,) = results["scenarios"]  # type: ignore[misc]
    return list(scenario["runs"])  # type: ignore[index]


def test_each_treatment_rolls_its_own_discipline_out_over_the_scenarios_mix(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "{ vtime = 2, baseline = 1 }")
    args = ["--discipline", "baseline", "--discipline", "vtime", "--discipline", "vtime-v17"]
    runs = runs_of(headless("--scenario", str(path), *args, "--out", str(tmp_path / "r.json")))
    named = {r["treatment"]: (r["discipline"], r["consumers"], r.get("lineup")) for r in runs}
    assert named == {
        "baseline": ("baseline", 3, None),  # every instance flag-off: before the rollout
        "vtime": ("vtime:2+baseline:1", 3, "vtime:2,baseline:1"),
        "vtime-v17": ("vtime-v17:2+baseline:1", 3, "vtime-v17:2,baseline:1"),
    }
    per = runs[1]["metrics"]["per_consumer"]  # type: ignore[index]
    assert [c["discipline"] for c in per] == ["vtime", "vtime", "baseline"]


def test_a_scenarios_mix_runs_as_the_same_mix_given_by_the_flag(tmp_path: Path) -> None:
    mixed = write(tmp_path, '"vtime:2,baseline:1"')
    plain = write(tmp_path, "1", "plain")
    from_file = headless(
        "--scenario", str(mixed), "--discipline", "vtime", "--out", str(tmp_path / "a.json")
    )
    by_flag = headless(
        "--scenario",
        str(plain),
        "--consumers",
        "vtime:2,baseline:1",
        "--out",
        str(tmp_path / "b.json"),
    )
    (a,), (b,) = runs_of(from_file), runs_of(by_flag)
    assert a["metrics"] == b["metrics"] and a["lineup"] == b["lineup"]
    # the treatment's own consumers win over the scenario's: a count runs no mix
    counted = headless(
        "--scenario",
        str(mixed),
        "--discipline",
        "vtime",
        "--consumers",
        "2",
        "--out",
        str(tmp_path / "c.json"),
    )
    (c,) = runs_of(counted)
    assert (c["discipline"], c["consumers"], c.get("lineup")) == ("vtime", 2, None)


@pytest.mark.parametrize(
    ("consumers", "needle"),
    [
        ('"vtime:0,baseline:1"', "consumers: 'vtime:0': a discipline needs at least 1"),
        ('"nope:1,baseline:1"', "consumers: unknown discipline 'nope'"),
        ('"sfq:1,baseline:1"', "consumers: 'sfq' ranks in each consumer's own process"),
        ('"baseline:2"', "consumers: a mix of baseline alone"),
        ("{ vtime = 1.5 }", "consumers: 'vtime': the count must be a whole number"),
    ],
)
def test_a_bad_mix_in_a_scenario_file_is_one_line_naming_the_file_and_field(
    consumers: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, consumers)
    out = tmp_path / "r.json"
    code = main(["--headless", "--scenario", str(path), "--discipline", "vtime", "--out", str(out)])
    assert code == ExitCode.USAGE
    line = one_error_line(capsys)
    assert needle in line and str(path) in line
    assert not out.exists()
    assert main(["validate", str(path)]) == ExitCode.USAGE
    assert needle in capsys.readouterr().err


def test_a_treatment_that_cannot_share_a_queue_does_not_run_a_mix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '"vtime:1,baseline:1"')
    args = ["--headless", "--scenario", str(path), "--out", str(tmp_path / "r.json")]
    assert main([*args, "--discipline", "sfq"]) == ExitCode.USAGE
    assert "its consumers are a mix" in one_error_line(capsys)
