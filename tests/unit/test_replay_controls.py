"""`ckviz replay` passes only the control sequences a recording of ckviz contains (issue 35
item 2): what Textual draws with is kept byte for byte; what could write the clipboard, set
the title or make the terminal answer is dropped and counted, even split across events."""

from __future__ import annotations

import pytest

from ckviz.model.controls import ControlFilter

DRAWING = (
    "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h\x1b[?2004h\x1b[>1u"
    "\x1b[?2026h\x1b[H\x1b[1;1H\x1b[38;2;255;0;0;48;5;17;1mred\x1b[0m\x1b[2J\x1b[K\x1b[3A"
    "\x1b7\x1b8\x1b[?7l\x1b[38:2::1:2:3m\x1b[?2026l\r\n\ttab\bé☕\x1b[<u\x1b[?1049l\x1b[?25h"
)


def filtered(*events: str) -> tuple[str, int]:
    f = ControlFilter()
    out = "".join(f.feed(e) for e in events)
    return out, f.finish()


def test_what_textual_draws_with_is_kept_as_it_is() -> None:
    assert filtered(DRAWING) == (DRAWING, 0)


@pytest.mark.parametrize(
    "hostile",
    [
        "\x1b]52;c;ZWNobyBwd25lZA==\x07",  # the clipboard
        "\x1b]52;c;ZWNobyBwd25lZA==\x1b\\",
        "\x1b]0;pwned\x07",  # the title
        "\x1b]2;pwned\x1b\\",
        "\x1b]8;;http://evil.example\x1b\\",  # a hyperlink
        "\x1bP+q544e\x1b\\",  # DCS: a terminfo query
        "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\",  # passed through tmux
        "\x1b_APC\x1b\\",
        "\x1b^PM\x1b\\",
        "\x1bXSOS\x1b\\",
        "\x1b[6n",  # cursor position report: the terminal answers
        "\x1b[c",  # device attributes
        "\x1b[>c",
        "\x1b[5n",
        "\x1b[21t",  # report the title
        "\x1b[8;100;100t",  # resize the window
        "\x1b[?u",  # keyboard protocol query
        "\x1b[?2026$p",  # mode query
        "\x1b[?9h",  # X10 mouse: not a mode Textual sets
        "\x1b[4h",  # insert mode
        "\x1bc",  # full reset
        "\x9d52;c;eA==\x9c",  # 8-bit OSC, as C1 controls
        "\x9b6n",  # 8-bit CSI
        "\x05",  # ENQ: answerback
        "\x1b[" + "1;" * 100 + "m",  # longer than any sequence Textual writes
    ],
)
def test_what_could_write_report_or_retitle_is_dropped_and_counted(hostile: str) -> None:
    out, dropped = filtered("a" + hostile + "b")
    assert dropped >= 1
    assert (
        "\x1b]" not in out and "\x1bP" not in out and not any(0x80 <= ord(c) <= 0x9F for c in out)
    )
    assert out.startswith("a") and out.endswith("b")
    assert "pwned" not in out and "52;" not in out


def test_a_sequence_split_across_events_is_still_dropped() -> None:
    out, dropped = filtered("x\x1b]5", "2;c;ZW", "Nobw==\x1b", "\\y\x1b", "[6", "nz\x1b[", "1mw")
    assert (out, dropped) == ("xyz\x1b[1mw", 2)


def test_an_open_sequence_at_the_end_is_dropped() -> None:
    assert filtered("ok\x1b]52;c;eA==") == ("ok", 1)


def test_a_lone_surrogate_becomes_a_replacement_character() -> None:
    assert filtered("a\ud800b") == ("a\ufffdb", 0)
