"""The dequeue arithmetic shared with the Lua: budgets, scan windows, rescore scores."""

from __future__ import annotations

import pytest

from ckviz.model.arithmetic import (
    DEFAULT_QUEUE_LIMIT,
    SCAN_FACTOR,
    batch_room,
    dequeue_budget,
    queue_limit,
    rescore_scores,
    scan_window,
)


@pytest.mark.parametrize(
    ("max_count", "env_limit", "held", "total_cap", "budget"),
    [
        (1, 4, 0, None, 1),
        (8, 4, 1, None, 3),  # the env's free slots bound a batch
        (1, 4, 4, None, 0),  # env full
        (4, 4, 1, 2, 1),  # a batch may not carry the held runs past the total cap
        (1, 4, 2, 2, 0),  # total cap full: the driver does not call the dequeue at all
        (1, 4, 3, 2, 0),
    ],
)
def test_budget_and_window(
    max_count: int, env_limit: int, held: int, total_cap: int | None, budget: int
) -> None:
    assert dequeue_budget(max_count, env_limit, held, total_cap) == budget
    assert scan_window(max_count, env_limit, held, total_cap) == budget * SCAN_FACTOR


def test_batch_room_and_queue_limit() -> None:
    assert batch_room(5, 1, None) == 5 and batch_room(5, 1, 3) == 2
    assert queue_limit(None, 4) == 4 and queue_limit(2, 4) == 2
    assert queue_limit(None, 10**7) == DEFAULT_QUEUE_LIMIT


def test_rescore_scores_are_below_now_best_first() -> None:
    assert rescore_scores(3, 100) == [97, 98, 99]
    assert rescore_scores(0, 100) == []
