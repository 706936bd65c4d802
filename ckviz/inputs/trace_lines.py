"""A trace file's lines, one run each, parsed and checked on their own (inputs/trace.py
checks what spans lines: keys, weights, tenants, run ids, time order): CSV with a header row,
or JSON Lines; `#` comment lines skipped (in a CSV, only before its header row)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckviz.inputs.files import open_regular
from ckviz.inputs.trace_fields import (
    LIFE_FIELDS,
    START_FIELDS,
    life_of,
    tenant_field,
    to_number,
    whole_ms,
    why_not,
)
from ckviz.model.lifecycle import PLAIN, RunLifecycle
from ckviz.model.scenario import key_name_problem, weight_problem

FIELDS = (
    "key",
    "arrival_ms",
    "hold_ms",
    "run_id",
    "weight",
    *LIFE_FIELDS,
    "outcome",
    *START_FIELDS,
    "tenant",
)
OUTCOMES = ("acked", "dead", "expired", "removed", "open")  # `outcome`'s words: notes only
COMMENT = "#"
REQUIRED = FIELDS[:3]
MAX_LINE_CHARS = 1_000_000  # a JSON Lines run is a few dozen characters


@dataclass(frozen=True, slots=True)
class TraceLine:
    """One run line as read: its line number and the run it gives."""

    number: int
    key: str
    arrival_ms: int
    hold_ms: int
    run_id: str | None
    weight: float | None
    life: RunLifecycle = PLAIN
    tenant: str | None = None


def lines_of(path: Path) -> Iterator[TraceLine | str]:
    """Each run line parsed, or a one-line problem naming `file:line`."""
    try:
        with io.TextIOWrapper(open_regular(path), encoding="utf-8-sig", newline="") as f:
            if path.suffix.lower() == ".csv":
                yield from _csv_lines(path, f)
            else:
                yield from _json_lines(path, f)
    except UnicodeDecodeError as exc:
        yield f"{path}: cannot read: not UTF-8 ({exc.reason} at byte {exc.start})"
    except OSError as exc:
        yield f"{path}: cannot read: {exc.strerror or exc}"


def _csv_lines(path: Path, f: Any) -> Iterator[TraceLine | str]:
    rows = csv.reader(f)
    names: dict[str, str] = {}
    header: list[str] | None = None
    plain = False  # the three columns a run needs and no others
    for row in _bounded(rows, path):
        if isinstance(row, str):
            yield row
            return
        number = rows.line_num
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # blank line
        if header is None and row[0].lstrip().startswith(COMMENT):
            continue  # a comment: where the trace came from
        if header is None:
            header = [h.strip() for h in row]
            bad = _header_problem(header)
            if bad:
                yield f"{path}:{number}: {bad}"
                return
            plain = header == list(REQUIRED)
            continue
        if len(row) != len(header):
            yield f"{path}:{number}: {len(row)} fields, the header has {len(header)}"
            continue
        line = _plain_line(number, row, names) if plain else None
        if line is None:
            record = dict(zip(header, row, strict=True))
            yield _parse(path, number, record, from_text=True, names=names)
        else:
            yield line


def _plain_line(number: int, row: list[str], names: dict[str, str]) -> TraceLine | None:
    """A `key,arrival_ms,hold_ms` row whose key was seen and passed, and whose times are
    whole non-negative ms: the run `_parse` makes of it, without building the record (a day
    of 10,000,000 lines is read once to check it and again by every cell replaying it);
    None for any other row, which `_parse` reads (and words the problem of)."""
    key, arrival_text, hold_text = row
    if names.get(key) != "":
        return None
    try:
        arrival, hold = int(arrival_text), int(hold_text)
    except ValueError:
        return None
    if arrival < 0 or hold < 0:
        return None
    return TraceLine(number, key, arrival, max(1, hold), None, None)


def _bounded(rows: Any, path: Path) -> Iterator[list[str] | str]:
    """The CSV reader's rows; a field past the csv module's limit (131,072 characters) or a
    malformed quote ends them with a one-line problem."""
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            why = str(exc)
            if "field limit" in why:
                why = f"a field is longer than {csv.field_size_limit():,} characters"
            yield f"{path}:{rows.line_num}: {why}"
            return
        yield row


def _header_problem(header: list[str]) -> str | None:
    unknown = [h for h in header if h not in FIELDS]
    if unknown:
        return (
            f"unknown column '{unknown[0]}' (a header row naming {', '.join(REQUIRED)} "
            f"and optionally run_id, weight, {', '.join(LIFE_FIELDS)}, outcome comes first)"
        )
    missing = [h for h in REQUIRED if h not in header]
    if missing:
        return f"the header has no '{missing[0]}' column"
    dup = next((h for h in header if header.count(h) > 1), None)
    return f"column '{dup}' appears twice" if dup else None


def _json_lines(path: Path, f: Any) -> Iterator[TraceLine | str]:
    names: dict[str, str] = {}
    for number, text in enumerate(f, start=1):
        if not text.strip() or text.lstrip().startswith(COMMENT):
            continue  # blank, or a comment (never JSON)
        if len(text) > MAX_LINE_CHARS:
            yield f"{path}:{number}: a line longer than {MAX_LINE_CHARS:,} characters"
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            yield f"{path}:{number}: not valid JSON: {exc.msg}"
            continue
        except RecursionError:
            yield f"{path}:{number}: not valid JSON: nested too deeply"
            continue
        except ValueError as exc:  # an integer past Python's 4,300 digits
            yield f"{path}:{number}: not valid JSON: {str(exc).split(';')[0]}"
            continue
        if not isinstance(record, dict):
            yield f"{path}:{number}: expected an object with {', '.join(REQUIRED)}"
            continue
        unknown = next((k for k in record if k not in FIELDS), None)
        if unknown is not None:
            fields = ", ".join(FIELDS)
            yield f"{path}:{number}: {_shown(str(unknown))}: unknown field (fields: {fields})"
            continue
        yield _parse(path, number, record, from_text=False, names=names)


def _parse(
    path: Path, number: int, record: dict[str, Any], *, from_text: bool, names: dict[str, str]
) -> TraceLine | str:
    """One run, or its problem. `names` caches each key's check: a key repeats a lot."""
    for name in REQUIRED:
        if record.get(name) in (None, ""):
            return f"{path}:{number}: {name}: missing"
    key = record["key"]
    problem = names.get(key) if isinstance(key, str) else "not a string"
    if problem is None:
        problem = key_name_problem(key) or ("longer than 200 characters" if len(key) > 200 else "")
        names[key] = problem
    if problem:
        return f"{path}:{number}: key: {problem}"
    arrival = whole_ms(record["arrival_ms"], from_text)
    if arrival is None or arrival < 0:
        return f"{path}:{number}: arrival_ms: {why_not(arrival)}"
    hold = whole_ms(record["hold_ms"], from_text)
    if hold is None or hold < 0:
        return f"{path}:{number}: hold_ms: {why_not(hold)}"
    weight = None
    if record.get("weight") not in (None, ""):
        weight = to_number(record["weight"], from_text)
        if weight is None or weight <= 0:
            return f"{path}:{number}: weight: {why_not(weight, positive=True)}"
        if weight_problem(weight):
            return f"{path}:{number}: weight: {weight_problem(weight)}"
    rid = record.get("run_id")
    if rid in (None, ""):
        rid = None
    elif not isinstance(rid, str) or not rid.isprintable():
        return f"{path}:{number}: run_id: not a string of printable characters"
    life = life_of(record, from_text)
    if isinstance(life, str):
        return f"{path}:{number}: {life}"
    outcome = record.get("outcome")
    if outcome not in (None, "", *OUTCOMES):
        return f"{path}:{number}: outcome: not one of {', '.join(OUTCOMES)}"
    tenant = tenant_field(record)
    if isinstance(tenant, tuple):
        return f"{path}:{number}: {tenant[0]}"
    return TraceLine(number, key, arrival, max(1, hold), rid, weight, life, tenant)


def _shown(text: str) -> str:
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
