"""The matrix's progress lines: a CI log gets them as they are, a terminal through rich."""

from __future__ import annotations

import pytest

from ckviz.headless.consoles import Consoles

LINE = "[3/72] ck_skew [bold]sfq[/bold] seed-a: Redis refused: :smile: NOSCRIPT"


def test_a_line_in_a_log_is_written_as_it_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTY_INTERACTIVE", "0")
    consoles = Consoles()
    consoles.line(LINE)
    consoles.line("next")
    assert capsys.readouterr().err == LINE + "\nnext\n"
    assert not consoles.stderr.is_interactive


def test_a_line_on_a_terminal_goes_through_rich_and_reads_the_same(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTY_INTERACTIVE", "1")  # rich takes stderr for a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    consoles = Consoles()
    assert consoles.stderr.is_interactive
    consoles.line(LINE)  # no markup, no emoji, no wrapping: the text itself
    assert capsys.readouterr().err == LINE + "\n"
