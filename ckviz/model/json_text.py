"""JSON text for files people read and diff: indented, but a list of numbers or strings on
one line, so a timeline of 65 counts is one line rather than 65."""

from __future__ import annotations

import json
from typing import Any

INDENT = "  "


def readable_json(node: Any) -> str:
    return _render(node, 0) + "\n"


def _render(node: Any, depth: int) -> str:
    if isinstance(node, dict):
        if not node:
            return "{}"
        inner = INDENT * (depth + 1)
        items = [f"{inner}{json.dumps(k)}: {_render(v, depth + 1)}" for k, v in node.items()]
        return "{\n" + ",\n".join(items) + "\n" + INDENT * depth + "}"
    if isinstance(node, list):
        if all(not isinstance(v, dict | list) for v in node):
            return json.dumps(node)
        inner = INDENT * (depth + 1)
        items = [f"{inner}{_render(v, depth + 1)}" for v in node]
        return "[\n" + ",\n".join(items) + "\n" + INDENT * depth + "]"
    return json.dumps(node)
