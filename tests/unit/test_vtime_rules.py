"""The vtime package's rules and view on hand-made states: no Redis, no engine."""

from __future__ import annotations

import pytest

from ckviz.disciplines.vtime.checks import VtimeCallCheck
from ckviz.disciplines.vtime.values import Visit, VtimeDequeue, VtimeState, VtimeView
from ckviz.disciplines.vtime.view import call_state, tag_order
from ckviz.model.invariants import FLOOR_MONOTONE, TAG_MONOTONE, TAGS_KNOWN, BrokenInvariant


def state(floor: float, **tags: float) -> VtimeState:
    return VtimeState(floor, True, dict(tags), {}, ())


def call(*visits: Visit) -> VtimeDequeue:
    return VtimeDequeue([], list(visits), 0.0)


def served(key: str, tag: float, drain: str = "") -> Visit:
    return Visit(1, key, "served", drain, tag)


def test_a_tag_may_not_go_down_while_its_key_stays_registered() -> None:
    check = VtimeCallCheck("head")
    check.after_call(0, call(served("a", 2.0)), state(0.0, a=2.0, b=0.0), {"a", "b"})
    with pytest.raises(BrokenInvariant) as caught:
        check.after_call(1, call(), state(0.0, a=1.0, b=0.0), {"a", "b"})
    assert caught.value.invariant == TAG_MONOTONE and caught.value.keys == ("a",)


@pytest.mark.parametrize("how", ["drained", "acked"])
def test_a_key_that_may_have_left_ckvtime_starts_afresh(how: str) -> None:
    check = VtimeCallCheck("v17")
    check.after_call(0, call(served("a", 2.0)), state(0.0, a=2.0), {"a"})
    if how == "acked":
        check.acked("a")
        later = call()
    else:
        later = call(Visit(1, "a", "empty", "removed", None))
    check.after_call(1, later, state(0.0, a=0.0), {"a"})  # re-registered at the floor


def test_the_floor_never_goes_down_and_only_enqueued_keys_are_tagged() -> None:
    check = VtimeCallCheck("head")
    check.after_call(0, call(), state(3.0, a=3.0), {"a"})
    with pytest.raises(BrokenInvariant) as caught:
        check.after_call(1, call(), state(2.0, a=3.0), {"a"})
    assert caught.value.invariant == FLOOR_MONOTONE
    with pytest.raises(BrokenInvariant) as caught:
        VtimeCallCheck("head").after_call(0, call(), state(0.0, z=1.0), {"a"})
    assert caught.value.invariant == TAGS_KNOWN and caught.value.keys == ("z",)


def test_the_step_view_orders_by_tag_at_least_the_floor_then_name() -> None:
    s = state(2.0, b=5.0, a=1.0, c=2.0)
    assert tag_order(["b", "c", "a", "new"], s) == ("a", "c", "new", "b")
    assert tag_order(["b", "a"], None) == ("b", "a")
    shown = call_state("vtime", "head", [("harness", "steps")], s, ((served("a", 3.0),), 2.0), 4)
    assert shown.fields == (("harness", "steps"), ("floor", 2.0))
    assert dict(shown.per_key) == {"b": (("tag", 5.0),), "a": (("tag", 1.0),), "c": (("tag", 2.0),)}
    assert shown.detail == VtimeView("head", s, (served("a", 3.0),), 2.0, traced=True, calls=4)
