"""JSON text for files people read and diff: indented, but a list of numbers or strings on
one line, so a timeline of 65 counts is one line rather than 65."""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring_ascii
from typing import Any

INDENT = "  "


def readable_json(node: Any) -> str:
    return _render(node, 0) + "\n"


def _render(node: Any, depth: int) -> str:
    if isinstance(node, dict):
        if not node:
            return "{}"
        inner = INDENT * (depth + 1)
        items = [f"{inner}{_scalar(k)}: {_render(v, depth + 1)}" for k, v in node.items()]
        return "{\n" + ",\n".join(items) + "\n" + INDENT * depth + "}"
    if isinstance(node, list):
        if all(not isinstance(v, dict | list) for v in node):
            try:
                return json.dumps(node, allow_nan=False)
            except ValueError:  # a NaN or an infinity among them
                return "[" + ", ".join(_scalar(v) for v in node) + "]"
        inner = INDENT * (depth + 1)
        items = [f"{inner}{_render(v, depth + 1)}" for v in node]
        return "[\n" + ",\n".join(items) + "\n" + INDENT * depth + "]"
    return _scalar(node)


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
