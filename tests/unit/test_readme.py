"""The README stays true: its two first commands and its worked scenario example."""

from __future__ import annotations

import re
from pathlib import Path

from ckviz.inputs import scenario_files
from ckviz.model.clock import MAX_LOGICAL_MS
from ckviz.model.scenario import MAX_KEYS, MAX_TOTAL_RUNS, MAX_TRACE_RUNS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands == ["uv run --no-dev ckviz --headless", "uv run pytest"]


def test_readme_states_the_limits_ckviz_enforces() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    for figure in (MAX_KEYS, MAX_TOTAL_RUNS, MAX_TRACE_RUNS, MAX_LOGICAL_MS):
        assert f"{figure:,}" in text, figure
    assert "trigger.dev" in text and "PR #4367" in text and "the reference" not in text


def test_worked_scenario_example_is_valid(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    example = re.search(r"```toml\n(# scenarios/noisy_neighbour.toml\n.*?)```", text, re.S)
    assert example is not None
    path = tmp_path / "noisy_neighbour.toml"
    path.write_text(example.group(1), encoding="utf-8")
    assert scenario_files.problems_in(path) == []
    sc = scenario_files.load(str(path))
    assert [k.name for k in sc.expanded_keys()] == ["flood", "regular-0", "regular-1", "regular-2"]
    assert sc.caps.per_key == 2 and sc.expect[0].better_than == "baseline"


def test_layout_names_only_rooms_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    layout = re.search(r"## Layout\n.*?```text\n(.*?)```", text, re.S)
    assert layout is not None
    root = README.parent
    folder = ""
    named = 0
    for line in layout.group(1).splitlines():
        indented = line.startswith("  ")
        for word in line.strip().split("  ")[0].split():
            if not re.fullmatch(r"[\w/.*]+\.(py|toml)|[\w/]+/", word):
                continue
            if not indented:
                folder = word if word.endswith("/") else folder
            path = root / (folder + word if indented else word)
            assert path.exists() or "*" in word, f"README layout names {word}, which is gone"
            named += 1
    assert named >= 20
