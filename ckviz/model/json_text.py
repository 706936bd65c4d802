"""JSON text for files people read and diff: indented, but a list of numbers or strings on
one line, so a timeline of 65 counts is one line rather than 65."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring_ascii
from typing import Any

INDENT = "  "
_PLAIN = {str, int, float, bool, type(None)}  # rendered by _scalar whatever the depth


class Pieces:
    """A list whose items are made one at a time as the text is written (a results file's
    runs): each item is rendered and let go before the next is made."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


def readable_json(node: Any) -> str:
    return "".join(readable_json_pieces(node))


def readable_json_pieces(node: Any) -> Iterator[str]:
    """readable_json(node) in pieces, for a writer that streams: the same text, joined."""
    yield from _render(node, 0)
    yield "\n"


def _render(node: Any, depth: int) -> Iterator[str]:
    if isinstance(node, dict):
        yield from _render_dict(node, depth)
    elif isinstance(node, Pieces):
        yield from _render_items(iter(node.items), depth)
    elif isinstance(node, list):
        if _all_plain(node):
            yield _flat_list(node)
        else:
            yield from _render_items(iter(node), depth)
    else:
        yield _scalar(node)


def _render_dict(node: dict[Any, Any], depth: int) -> Iterator[str]:
    if not node:
        yield "{}"
        return
    inner = INDENT * (depth + 1)
    sep = "{\n"
    for k, v in node.items():
        if type(v) in _PLAIN:  # one piece, not a generator per value (a weights map of 100,000)
            yield f"{sep}{inner}{_scalar(k)}: {_scalar(v)}"
        else:
            yield f"{sep}{inner}{_scalar(k)}: "
            yield from _render(v, depth + 1)
        sep = ",\n"
    yield "\n" + INDENT * depth + "}"


def _render_items(items: Iterator[Any], depth: int) -> Iterator[str]:
    """A list of objects or lists, one item per line (an empty one as `[]`)."""
    inner = INDENT * (depth + 1)
    sep = "[\n"
    for item in items:
        yield sep + inner
        yield from _render(item, depth + 1)
        sep = ",\n"
    yield "[]" if sep == "[\n" else "\n" + INDENT * depth + "]"


def _all_plain(node: list[Any]) -> bool:
    """No dict, list or Pieces among the items: asked of each distinct type, not each item
    (a column of 100,000 numbers has one or two)."""
    return not any(issubclass(kind, dict | list | Pieces) for kind in set(map(type, node)))


def _flat_list(node: list[Any]) -> str:
    """A list of plain values on one line."""
    try:
        return json.dumps(node, allow_nan=False)
    except ValueError:  # a NaN or an infinity among them
        return "[" + ", ".join(_scalar(v) for v in node) + "]"


def _scalar(value: Any) -> str:
    """json.dumps(value) for a plain value, without its per-call encoder setup: a results file
    of 10,000 keys holds hundreds of thousands of them."""
    kind = type(value)
    if kind is str:
        return str(encode_basestring_ascii(value))
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        # NaN and the infinities are not JSON (JSON.parse rejects the file): no figure at all
        return float.__repr__(value) if math.isfinite(value) else "null"
    if isinstance(value, float) and not math.isfinite(value):
        return "null"  # a float subclass
    return json.dumps(value)  # bool, None, subclasses
