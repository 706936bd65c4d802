"""docs/performance.md is today's figures, not a diary: short, and every section says when
its figures were measured and with which command (the dated history is the file's own)."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "performance.md"
MOST_LINES = 250
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
COMMAND = re.compile(r"`(uv run [^`]+|bench/[^`]+)`|^    uv run ", re.MULTILINE)


def sections() -> dict[str, str]:
    parts = re.split(r"^## (.+)$", PAGE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_page_is_short_enough_to_find_todays_figures() -> None:
    lines = len(PAGE.read_text(encoding="utf-8").splitlines())
    assert lines <= MOST_LINES, f"docs/performance.md has {lines} lines (at most {MOST_LINES})"


def test_every_section_dates_its_figures_and_names_the_command() -> None:
    found = sections()
    assert len(found) >= 5
    for title, text in found.items():
        assert DATE.search(text), f"'{title}': no date"
        assert COMMAND.search(text), f"'{title}': no command"
