"""Per-key figures column-wise, as results files from `schema_version: 2` store them: one
array per figure, in the order of the `key` array, rather than one object per key (whose
field names, repeated for each of 100,000 keys, were most of a large file).

Generic over the figures: whatever fields a row has become columns of the same name, and a
nested object (a row's `lifecycle`) becomes a nested group of columns. A row without that
object is null in every column of the group, and a group no row has is left out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import methodcaller
from typing import Any

KEY = "key"  # the column every other one is in the order of


def to_columns(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Rows (dicts, one per key, as model_dump writes them) as columns."""
    names: dict[str, None] = {KEY: None}
    # rows agree on their fields but for groups some rows leave out: each distinct field
    # list once, in the order rows first have it
    for fields in dict.fromkeys(map(tuple, rows)):
        names.update(dict.fromkeys(fields))
    columns: dict[str, Any] = {}
    for name in names:
        values = list(map(methodcaller("get", name), rows))
        if any(issubclass(kind, dict) for kind in set(map(type, values))):  # a group:
            # a row without it is {}
            columns[name] = to_columns_of([v if isinstance(v, dict) else {} for v in values])
        else:
            columns[name] = values
    return columns


def to_columns_of(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A nested group's columns (no `key` of its own): a row lacking the group is {} here and
    null in each column."""
    names: dict[str, None] = {}
    for fields in dict.fromkeys(map(tuple, rows)):
        names.update(dict.fromkeys(fields))
    return {name: list(map(methodcaller("get", name), rows)) for name in names}


class ColumnsError(ValueError):
    """Columns that do not make rows: where, and why (one line)."""


def to_rows(columns: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Columns back into rows (ColumnsError when an array's length is not the key array's)."""
    keys = columns.get(KEY)
    if not isinstance(keys, list):
        raise ColumnsError(f"the '{KEY}' column must be an array of key names")
    n = len(keys)
    rows: list[dict[str, Any]] = [{} for _ in range(n)]
    for name, values in columns.items():
        if isinstance(values, dict):
            for row, inner in zip(rows, _group_rows(name, values, n), strict=True):
                if inner is not None:
                    row[name] = inner
            continue
        _check_length(name, values, n)
        for row, value in zip(rows, values, strict=True):
            row[name] = value
    return rows


def _group_rows(name: str, group: Mapping[str, Any], n: int) -> list[dict[str, Any] | None]:
    """A nested group's rows: None for a row null in every column of the group."""
    rows: list[dict[str, Any]] = [{} for _ in range(n)]
    for inner, values in group.items():
        _check_length(f"{name}.{inner}", values, n)
        for row, value in zip(rows, values, strict=True):
            row[inner] = value
    return [row if any(v is not None for v in row.values()) else None for row in rows]


def _check_length(name: str, values: object, n: int) -> None:
    if not isinstance(values, list):
        raise ColumnsError(f"column '{name}' must be an array")
    if len(values) != n:
        raise ColumnsError(f"column '{name}' has {len(values)} values for {n} keys")


def columns_schema(
    row: Mapping[str, Any], defs: Mapping[str, Any], nullable: bool = False
) -> dict[str, Any]:
    """The JSON Schema of a row model's columns, from the row's schema (`defs` resolves a
    nested group's `$ref`): each property an array of it, the same ones required. In a
    group (`nullable`), a row without the group is null in every column."""
    properties: dict[str, Any] = {}
    for name, prop in row.get("properties", {}).items():
        title = prop.get("title", name)
        nested = _nested_ref(prop)
        if nested is not None:
            group = columns_schema(defs[nested], defs, nullable=True)
            properties[name] = {"title": title, **group}
            continue
        item = {k: v for k, v in prop.items() if k not in ("title", "default")}
        if nullable and {"type": "null"} not in item.get("anyOf", []):
            item = {"anyOf": [item, {"type": "null"}]}
        properties[name] = {"title": title, "type": "array", "items": item}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    schema["additionalProperties"] = False
    required = [name for name in row.get("required", []) if name in properties]
    if required:
        schema["required"] = required
    return schema


def _nested_ref(prop: Mapping[str, Any]) -> str | None:
    """The definition name of a property that is an object model (or null), else None."""
    options = prop.get("anyOf", [prop])
    refs = [o["$ref"] for o in options if "$ref" in o]
    return refs[0].rsplit("/", 1)[-1] if refs else None
