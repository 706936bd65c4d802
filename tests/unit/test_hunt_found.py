"""What `ckviz hunt` writes runs as printed (issue 35 item 8): the found file names only keys
the scenario declares (a key minted at run time, `fresh-117`, made the file invalid), and the
reproduce line writes results of its own beside the found file."""

from __future__ import annotations

import shlex
from pathlib import Path

from ckviz.hunt.found import reproduce_command, scenario_text
from ckviz.hunt.objective import Verdict
from ckviz.hunt.space import HuntCase
from ckviz.inputs.scenario_files import load_any
from ckviz.model.steps import Arrivals, StepHarness, StepKeySpec, StepScenario

MINTING = StepScenario(
    harness=StepHarness(kind="steps", max_steps=50),
    keys=[StepKeySpec(name="k0", runs=20), StepKeySpec(name="k1", runs=3, start=5)],
    arrivals=Arrivals(fresh_per_call=2, fresh_start=0),
)


def written(tmp_path: Path, worst_key: str) -> Path:
    verdict = Verdict("vtime-v17", 0.0, worst_key, None, 0.0)
    found = tmp_path / "found.toml"
    found.write_text(scenario_text(HuntCase(MINTING, "seed-a"), verdict, "ckviz ..."))
    return found


def test_a_minted_worst_key_is_named_in_the_comment_not_in_victims(tmp_path: Path) -> None:
    found = written(tmp_path, "fresh-117")
    scenario = load_any(str(found))  # it was refused: victims: 'fresh-117' is not one of the keys
    assert isinstance(scenario, StepScenario) and scenario.victims == []
    assert "key fresh-117, minted at run time" in found.read_text()


def test_a_declared_worst_key_is_the_victim(tmp_path: Path) -> None:
    scenario = load_any(str(written(tmp_path, "k1")))
    assert isinstance(scenario, StepScenario) and scenario.victims == ["k1"]


def test_the_reproduce_line_writes_results_of_its_own() -> None:
    line = reproduce_command("my finds/found.toml", "steps", "vtime-v17")
    assert shlex.split(line) == [
        "ckviz",
        "--headless",
        "--scenario",
        "my finds/found.toml",
        "--discipline",
        "vtime-v17",
        "--out",
        "my finds/found.json",
        "--force",
    ]
    assert "--seeds seed-a" in reproduce_command("f.toml", "ms", "sfq")
    assert shlex.split(reproduce_command("f.json", "ms", "sfq"))[-2] == "f.results.json"
