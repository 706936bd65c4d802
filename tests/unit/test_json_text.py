"""The results file's text: every plain value written exactly as json.dumps writes it, but a
NaN or an infinity, which JSON has not, written as null."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ckviz.model.json_text import INDENT, readable_json

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def by_json_dumps(node: Any, depth: int = 0) -> str:
    """The layout spelled with json.dumps for every value (how the file was written before),
    non-finite floats as null."""
    if isinstance(node, float) and not math.isfinite(node):
        return "null"
    if isinstance(node, list):
        node = [None if isinstance(v, float) and not math.isfinite(v) else v for v in node]
    if isinstance(node, dict) and node:
        inner = INDENT * (depth + 1)
        items = [f"{inner}{json.dumps(k)}: {by_json_dumps(v, depth + 1)}" for k, v in node.items()]
        return "{\n" + ",\n".join(items) + "\n" + INDENT * depth + "}"
    if isinstance(node, list) and any(isinstance(v, dict | list) for v in node):
        items = [f"{INDENT * (depth + 1)}{by_json_dumps(v, depth + 1)}" for v in node]
        return "[\n" + ",\n".join(items) + "\n" + INDENT * depth + "]"
    return json.dumps(node)


@given(values)
@pytest.mark.slow
def test_every_value_is_written_as_json_dumps_writes_it(node: Any) -> None:
    assert readable_json(node) == by_json_dumps(node) + "\n"


def test_subclasses_and_specials_are_json_dumps_own() -> None:
    class Count(int):
        pass

    node = {"n": Count(3), "t": True, "nan": float("nan"), "inf": -float("inf"), "é": "ü"}
    assert readable_json(node) == by_json_dumps(node) + "\n"
    assert json.loads(readable_json(node))["nan"] is None


def test_a_list_holding_a_dict_or_list_subclass_is_one_item_a_line() -> None:
    class Row(dict[str, int]):
        pass

    class Values(list[int]):
        pass

    node = {"rows": [1, Row(a=1)], "values": [Values([2, 3]), 4], "flat": [1, 2.5, "x", None]}
    assert readable_json(node) == by_json_dumps(node) + "\n"
    assert '"flat": [1, 2.5, "x", null]' in readable_json(node)
