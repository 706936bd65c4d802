"""`ckviz --compare A,B SCENARIO` opens the app straight into compare mode; a bad value is one
line naming the flag, exit 2, before any server starts (issue 23 item 9)."""

from __future__ import annotations

import pytest

from ckviz.cli import main
from ckviz.commands.root import build_parser
from ckviz.player.choice import compare_choice


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--compare", "sfq"], "is not two disciplines"),
        (["--compare", "sfq,nope"], "unknown discipline 'nope'"),
        (["--compare", "sfq,drr", "micro_skew"], "'sfq' does not run on 'micro_skew'"),
        (["--compare", "sfq,baseline", "--discipline", "sfq"], "drop --discipline"),
        (["--compare", "sfq,baseline", "--headless"], "is for the terminal app"),
    ],
)
def test_a_bad_compare_is_one_line_naming_the_flag(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(args)
    except SystemExit as stop:
        code = int(stop.code or 0)
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "--compare" in err and said in err


def test_compare_names_both_lanes() -> None:
    ns = build_parser().parse_args(["--compare", "sfq, baseline", "ck_skew"])
    assert compare_choice(ns) == ("sfq", "baseline")
    assert compare_choice(build_parser().parse_args(["ck_skew"])) is None
