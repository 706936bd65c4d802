"""A key whose head is not due yet (a retry's backoff, a delay) is not waiting: no negative
age or wait in the per-key table."""

from __future__ import annotations

from ckviz.model.snapshot import KeyRow, wait_so_far

BASE = 1_000_000


def row(head_ms: int | None, wait_sum_ms: int = 0, dequeued: int = 0) -> KeyRow:
    head = None if head_ms is None else float(BASE + head_ms)
    return KeyRow("k", 1.0, 0 if head is None else 1, 0, dequeued, 0, head, wait_sum_ms)


def test_a_due_head_counts_its_age() -> None:
    r = row(head_ms=100, wait_sum_ms=40, dequeued=2)
    assert r.head_age(250, BASE) == 150
    assert r.wait_so_far(250, BASE) == (40 + 150) / 3


def test_a_head_due_later_is_not_waiting_yet() -> None:
    r = row(head_ms=300, wait_sum_ms=40, dequeued=2)
    assert r.head_age(250, BASE) is None
    assert r.wait_so_far(250, BASE) == 20  # the served runs' mean only
    assert row(head_ms=300).wait_so_far(250, BASE) is None


def test_the_parts_form_ignores_a_negative_age() -> None:
    assert wait_so_far(40, 2, -26.0) == 20
    assert wait_so_far(40, 2, 0.0) == 40 / 3
