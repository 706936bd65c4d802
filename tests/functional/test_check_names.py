"""`ckviz check` on a custom scenario's results names what the user gave (issue 35 item 16):
the results file and its scenario, never a `--check` flag nobody passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckviz.cli import main
from ckviz.sim.cell.session import new_namespace
from ckviz.store.server import RedisServer
from tests.functional.cli_support import exits

BURST = """
env_limit = 2
light_key = "light"

[[keys]]
name = "heavy"
runs = 6

[[keys]]
name = "light"
runs = 2

[[expect]]
discipline = "baseline"
metric = "contention_worst_share_over_weight"
at_least = 0.0
"""


@pytest.fixture
def custom_results(redis_server: RedisServer, tmp_path: Path) -> tuple[Path, Path]:
    scenario = tmp_path / "burst.toml"
    scenario.write_text(BURST)
    out = tmp_path / "all.json"
    root = new_namespace("ckviz-test").rstrip(":").replace(":", "-")
    args = ["--headless", "--scenario", str(scenario), "--discipline", "baseline"]
    args += ["--seeds", "seed-a", "--jobs", "1", "--redis-url", redis_server.url]
    assert main([*args, "--prefix", root, "--out", str(out), "-q"]) == 0
    return scenario, out


def test_check_on_a_custom_scenario_names_the_file_and_the_scenario(
    custom_results: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    scenario, results = custom_results
    for command, named in ((["check"], "check"), (["report", "--check"], "report --check")):
        code, _, err = exits([*command, str(results)], capsys)
        assert code == 2
        assert err.count("\n") == 1, err
        assert err.startswith(f"ckviz: error: {named}: {results}: scenario 'burst' is not bundled")
        assert "give its file with --scenario PATH" in err
    code, out, err = exits(["check", str(results), "--scenario", str(scenario)], capsys)
    assert code == 0, err
    assert "passed" in out
