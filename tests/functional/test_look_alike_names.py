"""Names that look alike (issue 35 item 11): composed and decomposed `café`, a zero-width
space, a bidi override. Every table shows invisible and bidi characters escaped (terminal,
Markdown, HTML, the app's key column, one function), and `validate` warns on look-alikes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text

from ckviz.model.names import look_alikes, shown_name
from ckviz.tui.palette import KeyPalette
from ckviz.tui.text import key_cell
from tests.functional.cli_support import ckviz, ckviz_here

NAMES = ["caf\u00e9", "cafe\u0301", "a\u200bb", "ab", "\u202eevil", "x\u00a0y"]
QUICK = ("--discipline", "baseline", "--discipline", "sfq", "--seeds", "seed-a")


def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "alike.toml"
    path.write_text(
        "".join(
            f'[[keys]]\nname = {json.dumps(n)}\nruns = 3\narrival = "immediate"\n' for n in NAMES
        ),
        "utf-8",
    )
    return path


def test_shown_names_escape_what_cannot_be_seen() -> None:
    assert [shown_name(n) for n in NAMES] == [
        "caf\u00e9",
        "cafe\u0301",
        "a\\u200bb",
        "ab",
        "\\u202eevil",
        "x\\xa0y",
    ]
    assert look_alikes(NAMES) == [("caf\u00e9", "cafe\u0301"), ("a\u200bb", "ab")]
    out = Text()
    key_cell(out, "a\u200bb", KeyPalette(["a\u200bb"], ["#ff0000"]), 12)
    assert out.plain.strip() == "a\\u200bb"  # the app's key column


@pytest.mark.slow
def test_every_table_escapes_them_and_validate_warns(tmp_path: Path) -> None:
    path, out = scenario(tmp_path), tmp_path / "r.json"
    run = ckviz("--headless", "--scenario", str(path), *QUICK, "--out", str(out))
    assert run.returncode == 0, run.stderr
    markdown = ckviz("report", str(out), "--markdown", "-")
    assert ckviz_here("report", str(out), "--out", str(tmp_path / "r.html")).returncode == 0
    html = (tmp_path / "r.html").read_text("utf-8")
    for shown, text in (("terminal", run.stdout), ("markdown", markdown.stdout), ("html", html)):
        assert "\u200b" not in text and "\u202e" not in text, shown
    assert "\\u202eevil" in run.stdout  # the most under-served key's cell
    assert "\\\\u202eevil" in markdown.stdout or "\\u202eevil" in markdown.stdout
    assert "\\u202eevil" in html
    validate = ckviz_here("validate", str(path))
    assert validate.returncode == 0, validate.stderr
    warnings = [line for line in validate.stderr.splitlines() if "look alike" in line]
    assert len(warnings) == 2, validate.stderr
    assert "'caf\\xe9' and 'cafe\\u0301'" in warnings[0]
    assert "'a\\u200bb' and 'ab'" in warnings[1]


def test_line_breaks_and_tabs_are_layout_not_escaped() -> None:
    assert shown_name("a\nb\tc") == "a\nb\tc"  # the report's paragraphs keep their breaks
    assert shown_name("a\rb\x1bc") == "a\\x0db\\x1bc"
