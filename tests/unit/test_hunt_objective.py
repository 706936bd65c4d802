"""The hunt's objective on hand-made dequeue logs: served / owed while a key waited."""

from __future__ import annotations

import pytest

from ckviz.fairness import MIN_OWED, OwnLimit
from ckviz.hunt.objective import owed_ratios
from ckviz.model.snapshot import DequeueEvent


def _log(*served: tuple[str, int, int]) -> list[DequeueEvent]:
    """(key, arrival, dequeued) per event, in dequeue order; run ids are made up."""
    return [DequeueEvent(k, f"{k}#{i}", a, d) for i, (k, a, d) in enumerate(served)]


def test_a_key_behind_a_backlog_gets_nothing_of_what_it_was_owed() -> None:
    backlog = [("heavy", 0, t) for t in range(10)]
    events = _log(*backlog, ("light", 1, 10))
    ratios = owed_ratios(events, {"heavy": 1.0, "light": 1.0})
    # light is owed half of 9 serves and its last one, and gets only that last one
    assert ratios["light"] == pytest.approx(1 / 5.5)
    assert ratios["heavy"] > 1.5


def test_round_robin_pays_every_key_what_it_is_owed() -> None:
    events = _log(*[(k, 0, t) for t in range(6) for k in ("a", "b")][:12])
    ratios = owed_ratios(events, {"a": 1.0, "b": 1.0})
    assert ratios == pytest.approx({"a": 1.0, "b": 1.0}, rel=0.25)
    assert min(ratios.values()) > 0.8


def test_weights_set_what_is_owed() -> None:
    # a weight-3 key and a weight-1 key, served 3:1 while both wait: both get what they are owed
    pattern = ["w3", "w3", "w3", "w1"] * 4
    events = _log(*[(k, 0, t) for t, k in enumerate(pattern)])
    ratios = owed_ratios(events, {"w3": 3.0, "w1": 1.0})
    assert ratios["w1"] == pytest.approx(1.0, rel=0.3)
    assert ratios["w3"] == pytest.approx(1.0, rel=0.3)


def test_a_short_wait_is_not_judged() -> None:
    # light waits through two serves: owed one, below the bar, so it is not judged at all
    events = _log(("heavy", 0, 0), ("heavy", 0, 1), ("light", 0, 2))
    assert "light" not in owed_ratios(events, {"heavy": 1.0, "light": 1.0})
    assert MIN_OWED > 1


def test_a_key_never_served_counts_from_its_oldest_run() -> None:
    events = _log(*[("heavy", 0, t) for t in range(8)])
    ratios = owed_ratios(events, {"heavy": 1.0, "light": 1.0}, waiting_since={"light": 0})
    assert ratios["light"] == 0.0


def test_a_key_waiting_on_its_own_cap_is_owed_nothing() -> None:
    # capped key c (cap 1) holds its first run for 10 ms; its second run waits on its own cap
    # while heavy is served: that is the cap's doing, not the discipline's
    events = _log(("c", 0, 0), *[("heavy", 0, t) for t in range(1, 9)], ("c", 0, 10))
    holds = {e.run_id: (10 if e.key == "c" else 1) for e in events}
    weights = {"heavy": 1.0, "c": 1.0}
    assert owed_ratios(events, weights)["c"] < 0.5  # without the cap it looks starved
    assert "c" not in owed_ratios(events, weights, own_limit=OwnLimit(1, holds))


def test_the_serves_of_one_instant_are_judged_together() -> None:
    # each instant three capped keys are served once each, in name order: the last one served
    # is not starved by the two served just before it in the same instant
    events = _log(*[(k, t, t) for t in range(0, 40, 2) for k in ("a", "b", "c")])
    holds = {e.run_id: 1 for e in events}
    ratios = owed_ratios(events, dict.fromkeys("abc", 1.0), own_limit=OwnLimit(1, holds))
    assert ratios == pytest.approx(dict.fromkeys("abc", 1.0))


def test_one_run_per_key_per_call_caps_what_a_key_is_owed() -> None:
    # a call of 10 serves, two keys with 20 runs each: each can take one per call, so the
    # 8 serves a key could not take are not owed to it
    events = _log(*[(k, 0, step) for step in range(6) for k in ("a", "b")])
    assert owed_ratios(events, {"a": 1.0, "b": 1.0}, per_call=1) == {"a": 1.0, "b": 1.0}
