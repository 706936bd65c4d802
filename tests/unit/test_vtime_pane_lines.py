"""vtime's pane lines list the tags a pane can show, and count the rest."""

from __future__ import annotations

from ckviz.disciplines.vtime.values import TAGS_LISTED, VtimeState, VtimeView


def tags_line(count: int) -> str:
    tags = {f"light-{i}": float(i) for i in range(count)}
    view = VtimeView("head", VtimeState(0.0, True, tags, {}, ()))
    (line,) = [line for line in view.pane_lines() if line[0][0].startswith("tags")]
    return "".join(piece for piece, _ in line)


def test_a_few_tags_are_all_listed_in_order() -> None:
    assert tags_line(3) == "tags (pass 1 order): light-0 0  light-1 1  light-2 2"


def test_many_tags_list_the_first_ones_and_count_the_rest() -> None:
    line = tags_line(100_000)
    listed = line.split(": ", 1)[1].split("  … ")[0].split("  ")
    assert len(listed) == TAGS_LISTED and listed[0] == "light-0 0"
    assert line.endswith(f"… {100_000 - TAGS_LISTED} more")
