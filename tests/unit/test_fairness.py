"""Water-filling and attainment on cases worked by hand (the docs page's example among them)."""

from __future__ import annotations

import pytest

from ckviz.fairness import MIN_OWED, key_service, water_fill
from ckviz.fairness_judged import most_underserved, share_below, starved_keys
from ckviz.model.snapshot import DequeueEvent


def _log(*served: tuple[str, int, int]) -> list[DequeueEvent]:
    """(key, arrival, dequeued) per event, in dequeue order; run ids are made up."""
    return [DequeueEvent(k, f"{k}#{i}", a, d) for i, (k, a, d) in enumerate(served)]


@pytest.mark.parametrize(
    ("dequeues", "rooms", "weights", "fair"),
    [
        (3, {"flood": 6, "quiet": 1}, {}, {"flood": 2.0, "quiet": 1.0}),  # quiet full at 1
        (3, {"flood": 3, "quiet": 2}, {}, {"flood": 1.5, "quiet": 1.5}),  # even split
        (4, {"a": 10, "b": 10}, {"a": 3.0, "b": 1.0}, {"a": 3.0, "b": 1.0}),  # by weight
        (6, {"a": 1, "b": 2, "c": 10}, {}, {"a": 1.0, "b": 2.0, "c": 3.0}),  # a, then b full
        (2, {"a": 4, "b": 0}, {}, {"a": 2.0, "b": 0.0}),  # no room, nothing owed
        (0, {"a": 4, "b": 4}, {}, {"a": 0.0, "b": 0.0}),
        (4, {"a": 1, "b": 4}, {"a": 1.0, "b": 9.0}, {"a": 0.4, "b": 3.6}),  # by weight
        (5, {"a": 3, "b": 4}, {"a": 1.0, "b": 9.0}, {"a": 1.0, "b": 4.0}),  # b full, a gets more
    ],
)
def test_water_fill_by_hand(
    dequeues: int, rooms: dict[str, int], weights: dict[str, float], fair: dict[str, float]
) -> None:
    assert water_fill(dequeues, rooms, weights) == pytest.approx(fair)


# docs/fairness.md's worked example: 3 slots, flood's 6 runs and quiet's 2 (arrived at 0 and
# 10) under age order, which serves flood first.
WORKED = _log(
    ("flood", 0, 0), ("flood", 0, 0), ("flood", 0, 0),
    ("flood", 0, 10), ("flood", 0, 10), ("flood", 0, 10),
    ("quiet", 0, 20), ("quiet", 10, 20),
)  # fmt: skip


def test_the_worked_example() -> None:
    service = key_service(WORKED, {"flood": 1.0, "quiet": 1.0})
    # t=0: rooms 6, 1 -> owed 2, 1; t=10: rooms 3, 2 -> 1.5, 1.5; t=20: quiet alone -> 2
    assert service["flood"].owed == pytest.approx(3.5)
    assert service["quiet"].owed == pytest.approx(4.5)
    assert service["flood"].attainment == pytest.approx(6 / 3.5)
    assert service["quiet"].attainment == pytest.approx(2 / 4.5)
    assert most_underserved(service) == ("quiet", pytest.approx(2 / 4.5))
    assert share_below(service, 0.5) == 0.5
    assert share_below(service, 0.9) == 0.5
    # quiet was owed 2.5 while flood was served beside it: below the bar, so not "starved"
    assert service["quiet"].owed_beside_others == pytest.approx(2.5)
    assert starved_keys(service) == []


def test_the_worked_example_served_fairly() -> None:
    fair = _log(
        ("flood", 0, 0), ("flood", 0, 0), ("quiet", 0, 0),
        ("flood", 0, 10), ("flood", 0, 10), ("quiet", 10, 10),
        ("flood", 0, 20), ("flood", 0, 20),
    )  # fmt: skip
    service = key_service(fair, {"flood": 1.0, "quiet": 1.0})
    assert service["flood"].attainment == pytest.approx(1.0)
    assert service["quiet"].owed == pytest.approx(2.0)  # under MIN_OWED: not judged
    assert service["quiet"].attainment is None
    assert most_underserved(service) == ("flood", pytest.approx(1.0))


def test_a_key_served_only_once_alone_is_starved() -> None:
    events = _log(*[("heavy", 0, t) for t in range(8)], ("light", 1, 8))
    service = key_service(events, {"heavy": 1.0, "light": 1.0})
    assert service["light"].owed_beside_others == pytest.approx(3.5)  # half of t=1..7
    assert service["light"].got_beside_others == 0
    assert starved_keys(service) == ["light"]
    assert MIN_OWED == 3.0


def test_ties_go_to_the_first_name() -> None:
    events = _log(*[(k, 0, t) for t in range(8) for k in ("b", "a")])
    assert most_underserved(key_service(events, {"b": 1.0, "a": 1.0}))[0] == "a"  # type: ignore[index]


def test_nobody_judged_gives_no_figures() -> None:
    service = key_service(_log(("a", 0, 0)), {"a": 1.0})
    assert most_underserved(service) is None and share_below(service, 0.9) is None
