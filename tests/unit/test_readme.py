"""The README and the docs/ pages stay true: the two first commands, the worked examples, the
limits, the layout and the disciplines table (the registry's own text)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from ckviz.commands.catalog import SUBCOMMANDS
from ckviz.disciplines.registry import RULES, SUMMARIES
from ckviz.inputs import scenario_files
from ckviz.model.scenario import (
    DEFAULT_CLOCK_LIMIT_MS,
    MAX_CLOCK_LIMIT_MS,
    MAX_KEYS,
    MAX_TOTAL_RUNS,
    MAX_TRACE_RUNS,
)

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
    for figure in (
        MAX_KEYS,
        MAX_TOTAL_RUNS,
        MAX_TRACE_RUNS,
        DEFAULT_CLOCK_LIMIT_MS,
        MAX_CLOCK_LIMIT_MS,
    ):
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
    page_text = page("disciplines.md")
    table = re.search(
        r"\| discipline \| what it does \|.*\|\n\|---\|---\|---\|\n((?:\|.*\|\n)+)", page_text
    )
    assert table is not None
    rows = [
        re.fullmatch(r"\| `([^`]+)` \| (.*) \| (.*) \|", line)
        for line in table.group(1).splitlines()
    ]
    assert all(rows), table.group(1)
    assert {row.group(1): row.group(2) for row in rows if row} == SUMMARIES
    assert {row.group(1): row.group(3) for row in rows if row} == RULES


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


SHELL_COMMAND = re.compile(r"^\$? ?uv run (?:--no-dev )?(?:--extra \w+ )?ckviz( .*)?$")


def documented_commands() -> list[tuple[str, list[str]]]:
    """Every `uv run ckviz ...` line of a sh or text block of the README and the pages, as
    (where, its words up to a comment or a shell operator)."""
    found = []
    for path in [README, *sorted(DOCS.glob("*.md"))]:
        for block in re.findall(
            r"```(?:sh|text)\n(.*?)```", path.read_text(encoding="utf-8"), re.S
        ):
            for line in block.replace("\\\n", " ").splitlines():
                match = SHELL_COMMAND.match(line.split(" #")[0].strip())
                if match:
                    words = re.split(r" (?:&&|\||>)", match.group(1) or "")[0].split()
                    found.append((f"{path.name}: {line.strip()}", words))
    return found


def test_documented_commands_name_what_exists() -> None:
    """The scenarios, matrices, disciplines and subcommands the docs' commands name exist
    (a path or a placeholder in capitals is the reader's own)."""
    commands = documented_commands()
    assert len(commands) >= 30
    disciplines = set(SUMMARIES)
    for where, words in commands:
        if words and not words[0].startswith("-") and words[0] not in SUBCOMMANDS:
            named = words[0]  # the app's scenario
            assert "/" in named or "." in named or named in scenario_files.bundled_names(), where
        for flag, value in itertools.pairwise(words):
            if not re.fullmatch(r"[a-z][\w-]*", value):
                continue  # a path, a placeholder, a list, a bracketed option
            if flag == "--matrix":
                assert value in scenario_files.matrix_names(), where
            elif flag == "--scenario":
                assert value in scenario_files.bundled_names(), where
            elif flag == "--discipline":
                assert value in disciplines, where


def test_the_glossary_defines_the_projects_words() -> None:
    glossary = re.search(r"## Glossary\n(.*?)\n## ", page("architecture.md"), re.S)
    assert glossary is not None
    defined = re.findall(r"^\| \*\*([^*]+)\*\* \|", glossary.group(1), re.M)
    for word in ("books", "trip", "outbox", "door", "ride", "instant", "round", "lane", "frame"):
        assert word in defined, word
