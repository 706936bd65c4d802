"""The next dequeue's order from one refresh's reads (ckviz/live/order.py), by the scripts'
rules: the window of budget x SCAN_FACTOR, a key at its limit passed over, a head not due
skipped, at most one run a key; under vtime pass 1 by tag within a window's budget, then
pass 2 by age."""

from __future__ import annotations

from ckviz.live.order import baseline_order, room, vtime_order
from ckviz.live.picture import Limits, VariantRow

NOW = 10_000.0
LIMITS = Limits(10, None, 1, 10, 1)


def row(key: str, head: float | None, held: int = 0) -> VariantRow:
    return VariantRow(key, head, 1 if head else 0, f"r-{key}" if head else None, head, None, held)


def test_baseline_takes_the_oldest_heads_passing_a_key_at_its_limit() -> None:
    rows = {"a": row("a", 1, held=1), "b": row("b", 2), "c": row("c", 3), "d": row("d", 4)}
    index = [(k, r.head_score or 0) for k, r in rows.items()]
    picks = baseline_order(index, rows, LIMITS, take=2, now=NOW)
    assert [(p.key, p.fate) for p in picks] == [
        ("a", "limit"),
        ("b", "served"),
        ("c", "served"),
        ("d", "batch-full"),
    ]
    assert picks[1].run_id == "r-b"


def test_baseline_looks_no_further_than_its_window() -> None:
    rows = {f"k{i}": row(f"k{i}", i, held=1) for i in range(8)}
    rows["k7"] = row("k7", 7)
    index = [(k, r.head_score or 0) for k, r in rows.items()]
    picks = baseline_order(index, rows, LIMITS, take=2, now=NOW)
    assert [p.fate for p in picks] == ["limit"] * 6 + ["outside-window", "outside-window"]
    assert not any(p.fate == "served" for p in picks)  # k7 is ready, but past the window


def test_a_key_not_yet_due_is_neither_a_candidate_nor_served() -> None:
    rows = {"late": row("late", NOW + 500), "now": row("now", NOW)}
    picks = baseline_order([("now", NOW), ("late", NOW + 500)], rows, LIMITS, take=2, now=NOW)
    assert [(p.key, p.fate) for p in picks] == [("now", "served")]


def test_the_env_full_leaves_no_room() -> None:
    assert room(LIMITS, 10, 5).take == 0
    assert "the env is full (10 of 10 held)" in room(LIMITS, 10, 5).note
    assert room(LIMITS, 8, 5).take == 2


def test_vtime_serves_by_tag_then_the_untagged_by_age() -> None:
    rows = {k: row(k, h) for k, h in (("old", 1), ("mid", 2), ("new", 3), ("untagged", 0.5))}
    tags = [("new", 0.0), ("mid", 1.0), ("old", 2.0)]
    index = sorted(((k, r.head_score or 0) for k, r in rows.items()), key=lambda e: e[1])
    picks = vtime_order(tags, index, rows, LIMITS, take=4, now=NOW)
    assert [(p.key, p.rank[0][1]) for p in picks] == [
        ("new", 1),
        ("mid", 1),
        ("old", 1),
        ("untagged", 2),
    ]


def test_vtime_pass_one_stops_when_its_window_budget_is_spent() -> None:
    """Empty tagged keys cost the window's budget (take 1 x multiplier 3); a gated one does not."""
    rows = {"gated": row("gated", 1, held=1), "ready": row("ready", 9)}
    tags = [("gated", 0.0), ("e1", 0.0), ("e2", 0.0), ("e3", 0.0), ("ready", 5.0)]
    picks = vtime_order(tags, [("ready", 9)], rows, LIMITS, take=1, now=NOW)
    assert [(p.key, p.fate) for p in picks[:4]] == [
        ("gated", "limit"),
        ("e1", "empty"),
        ("e2", "empty"),
        ("e3", "empty"),
    ]
    assert (picks[4].key, picks[4].fate) == ("ready", "outside-window")
    assert (picks[5].key, picks[5].fate, picks[5].rank[0]) == ("ready", "served", ("pass", 2))


def test_a_head_past_its_ttl_is_dropped_and_vtime_drops_one_without_a_message() -> None:
    expired = VariantRow("x", 1, 1, "r-x", 1, None, 0, head_expires_ms=NOW - 1)
    orphan = VariantRow("o", 2, 1, "r-o", 2, None, 0, head_message=False)
    rows = {"x": expired, "o": orphan, "b": row("b", 3)}
    index = [("x", 1.0), ("o", 2.0), ("b", 3.0)]
    picks = baseline_order(index, rows, LIMITS, take=2, now=NOW)
    assert [(p.key, p.fate) for p in picks] == [("x", "expired"), ("o", "served"), ("b", "served")]
    picks = vtime_order([], index, rows, LIMITS, take=2, now=NOW)
    assert [(p.key, p.fate) for p in picks] == [("x", "expired"), ("o", "orphan"), ("b", "served")]
