"""A trace line's numbers, its optional lifecycle columns: `delay_ms` (enqueued that far in
the future), `ttl_ms` (expires that long after its enqueue) and `attempts` (the attempts the
run makes: all but the last fail; past the retry budget it is dead-lettered), and its optional
`tenant` (the customer its key belongs to: model/tenants.py)."""

from __future__ import annotations

import math
from typing import Any

from ckviz.model.lifecycle import MAX_ATTEMPTS, PLAIN, RunLifecycle

LIFE_FIELDS = ("delay_ms", "ttl_ms", "attempts")
START_FIELDS = ("age_ms", "start")  # a forked start: a run's age, or `held` (ckviz whatif)
MAX_AGE_MS = 86_400_000 * 30  # a month: a run queued longer is a stuck queue, not a fork's
MAX_LIFE_MS = 600_000  # as a scenario key's delay_ms and ttl_ms


def whole_ms(value: Any, from_text: bool) -> int | None:
    """Whole ms, rounded half up; None if not a finite number."""
    if from_text and isinstance(value, str):
        try:
            return int(value)  # the common case, and exact for epoch ms
        except ValueError:
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        return value
    number = to_number(value, from_text)
    return None if number is None else math.floor(number + 0.5)


def to_number(value: Any, from_text: bool) -> float | None:
    if from_text and isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def tenant_field(record: dict[str, Any]) -> str | tuple[str] | None:
    """The line's tenant (None when not given), or (`tenant: reason`,)."""
    tenant = record.get("tenant")
    if tenant in (None, ""):
        return None
    if not isinstance(tenant, str) or not tenant.isprintable() or len(tenant) > 200:
        return ("tenant: not a string of at most 200 printable characters",)
    return tenant


def why_not(value: float | None, positive: bool = False) -> str:
    if value is None:
        return "not a number"
    return "must be greater than 0" if positive else "must not be negative"


_LIFE_AND_START = frozenset((*LIFE_FIELDS, *START_FIELDS))


def life_of(record: dict[str, Any], from_text: bool) -> RunLifecycle | str:
    """The line's lifecycle and start columns (PLAIN when it gives none), or `field: reason`."""
    if _LIFE_AND_START.isdisjoint(record):  # a file without those columns: most, every line
        return PLAIN
    given = {name: record.get(name) for name in (*LIFE_FIELDS, *START_FIELDS)}
    if all(value in (None, "") for value in given.values()):
        return PLAIN
    start = _start_of(given, from_text)
    if isinstance(start, str):
        return start
    values: dict[str, int | None] = {}
    for name, low, high in (("delay_ms", 0, MAX_LIFE_MS), ("ttl_ms", 1, MAX_LIFE_MS)):
        values[name] = None
        if given[name] in (None, ""):
            continue
        value = whole_ms(given[name], from_text)
        if value is None or not low <= value <= high:
            return f"{name}: {_out_of(value, low, high)}"
        values[name] = value
    attempts = 1
    if given["attempts"] not in (None, ""):
        exact = to_number(given["attempts"], from_text)
        if exact is None or exact != int(exact) or not 1 <= exact <= MAX_ATTEMPTS:
            return f"attempts: {_out_of(exact, 1, MAX_ATTEMPTS, whole=True)}"
        attempts = int(exact)
    age, held = start
    return RunLifecycle(values["delay_ms"] or 0, values["ttl_ms"], attempts - 1, False, age, held)


def _start_of(given: dict[str, Any], from_text: bool) -> tuple[int, bool] | str:
    """(age_ms, held) of a forked start's run, or `field: reason`."""
    age = 0
    if given["age_ms"] not in (None, ""):
        value = whole_ms(given["age_ms"], from_text)
        if value is None or not 0 <= value <= MAX_AGE_MS:
            return f"age_ms: {_out_of(value, 0, MAX_AGE_MS)}"
        age = value
    start = given["start"]
    if start not in (None, "", "held"):
        return "start: not 'held' (a run holding its slot from its arrival) or empty"
    if start == "held" and age:
        return "age_ms: a held run has no age (it is not queued)"
    return age, start == "held"


def _out_of(value: float | None, low: int, high: int, whole: bool = False) -> str:
    if value is None:
        return "not a number"
    if whole and value != int(value):
        return "not a whole number"
    return f"must be from {low} to {high}"
