"""The README and the docs/ pages stay true: the two first commands, the worked examples, the
limits, the layout and the disciplines table (the registry's own text)."""

from __future__ import annotations

import re
from pathlib import Path

from ckviz.disciplines.registry import SUMMARIES
from ckviz.inputs import scenario_files
from ckviz.model.clock import MAX_LOGICAL_MS
from ckviz.model.scenario import MAX_KEYS, MAX_TOTAL_RUNS, MAX_TRACE_RUNS

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def first_commands(text: str) -> list[str]:
    first_block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first_block is not None
    return [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert first_commands(text) == ["uv run --no-dev ckviz --headless", "uv run pytest"]
    assert first_commands(page("index.md")) == first_commands(text)


def test_readme_is_a_front_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert "trigger.dev" in text and "PR #4367" in text and "the reference" not in text
    for picture in re.findall(r"!\[[^]]*\]\(([^)]+)\)", text):
        assert (ROOT / picture).is_file(), picture
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / target).is_file(), target


def test_the_docs_state_the_limits_ckviz_enforces() -> None:
    text = " ".join(page("scenarios.md").split())
    for figure in (MAX_KEYS, MAX_TOTAL_RUNS, MAX_TRACE_RUNS, MAX_LOGICAL_MS):
        assert f"{figure:,}" in text, figure


def test_worked_scenario_example_is_valid(tmp_path: Path) -> None:
    text = page("scenarios.md")
    example = re.search(r"```toml\n(# scenarios/noisy_neighbour.toml\n.*?)```", text, re.S)
    assert example is not None
    path = tmp_path / "noisy_neighbour.toml"
    path.write_text(example.group(1), encoding="utf-8")
    assert scenario_files.problems_in(path) == []
    sc = scenario_files.load(str(path))
    assert [k.name for k in sc.expanded_keys()] == ["flood", "regular-0", "regular-1", "regular-2"]
    assert sc.caps.per_key == 2 and sc.expect[0].better_than == "baseline"


def test_the_disciplines_table_is_the_registrys() -> None:
    table = re.search(
        r"\| discipline \| what it does \|\n\|---\|---\|\n((?:\|.*\|\n)+)", page("disciplines.md")
    )
    assert table is not None
    rows = [re.fullmatch(r"\| `([^`]+)` \| (.*) \|", line) for line in table.group(1).splitlines()]
    assert all(rows), table.group(1)
    assert {row.group(1): row.group(2) for row in rows if row} == SUMMARIES


def test_layout_names_only_rooms_that_exist() -> None:
    layout = re.search(r"## Layout\n.*?```text\n(.*?)```", page("architecture.md"), re.S)
    assert layout is not None
    folder = ""
    named = 0
    for line in layout.group(1).splitlines():
        indented = line.startswith("  ")
        for word in line.strip().split("  ")[0].split():
            if not re.fullmatch(r"[\w/.*]+\.(py|toml)|[\w/]+/", word):
                continue
            if not indented:
                folder = word if word.endswith("/") else folder
            path = ROOT / (folder + word if indented else word)
            assert path.exists() or "*" in word, f"the layout names {word}, which is gone"
            named += 1
    assert named >= 20
