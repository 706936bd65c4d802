"""Per-key rows to columns and back: the results file's version 2 layout loses nothing."""

from __future__ import annotations

import pytest

from ckviz.model.json_text import Pieces, readable_json, readable_json_pieces
from ckviz.model.key_columns import ColumnsError, to_columns, to_rows

LIFE = {"attempts": 3, "retries": 1, "success_wait_mean": None}
ROWS = [
    {"key": "a", "dequeued": 2, "mean_wait": 1.5, "slowdown": None, "lifecycle": LIFE},
    {"key": "b", "dequeued": 0, "mean_wait": 0.0, "slowdown": 2.0},  # no lifecycle object
    {"key": "c", "dequeued": 1, "mean_wait": 3.0, "slowdown": None, "lifecycle": LIFE},
]


def test_rows_become_columns_and_come_back() -> None:
    columns = to_columns(ROWS)
    assert columns["key"] == ["a", "b", "c"]
    assert columns["slowdown"] == [None, 2.0, None]
    assert columns["lifecycle"]["attempts"] == [3, None, 3]  # b has none: null throughout
    assert to_rows(columns) == ROWS


def test_a_group_no_row_has_is_left_out() -> None:
    rows = [{k: v for k, v in row.items() if k != "lifecycle"} for row in ROWS]
    assert "lifecycle" not in to_columns(rows)
    assert to_rows(to_columns(rows)) == rows
    assert to_columns([]) == {"key": []} and to_rows({"key": []}) == []


@pytest.mark.parametrize(
    ("columns", "reason"),
    [
        ({"dequeued": [1]}, "the 'key' column must be an array"),
        ({"key": ["a"], "dequeued": [1, 2]}, "column 'dequeued' has 2 values for 1 keys"),
        ({"key": ["a"], "dequeued": 1}, "column 'dequeued' must be an array"),
        ({"key": ["a"], "lifecycle": {"attempts": []}}, "column 'lifecycle.attempts' has 0"),
    ],
)
def test_columns_that_do_not_line_up_say_which(columns: dict[str, object], reason: str) -> None:
    with pytest.raises(ColumnsError, match=reason.replace("(", r"\(")):
        to_rows(columns)


def test_the_text_in_pieces_is_the_text_whole() -> None:
    node = {"runs": [{"per_key": to_columns(ROWS)}, {"empty": []}], "n": 1, "none": {}}
    lazy = {**node, "runs": Pieces(iter(node["runs"])), "more": Pieces(iter([]))}
    whole = readable_json({**node, "more": []})
    assert "".join(readable_json_pieces(lazy)) == whole
    assert '"key": ["a", "b", "c"]' in whole and '"more": []' in whole


def test_columns_come_in_the_order_rows_first_have_them() -> None:
    rows = [{"key": "a", "x": 1}, {"key": "b", "y": 2, "x": 3}, {"key": "c", "x": 4, "z": 5}]
    columns = to_columns(rows)
    assert list(columns) == ["key", "x", "y", "z"]
    assert columns["y"] == [None, 2, None] and columns["z"] == [None, None, 5]
    group = to_columns(
        [{"key": "a"}, {"key": "b", "g": {"q": 1, "p": 2}}, {"key": "c", "g": {"r": 3}}]
    )
    assert list(group["g"]) == ["q", "p", "r"] and group["g"]["r"] == [None, None, 3]
