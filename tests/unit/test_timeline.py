"""The compact service timeline on hand-made dequeue events."""

from __future__ import annotations

import json

from ckviz.model.json_text import readable_json
from ckviz.model.snapshot import DequeueEvent
from ckviz.timeline import MAX_SERIES, TIMELINE_POINTS, WAIT_PERCENTILES, service_timeline


def ev(key: str, arrival: int, dequeued: int) -> DequeueEvent:
    return DequeueEvent(key, f"{key}#{dequeued}", arrival, dequeued)


def test_counts_are_cumulative_at_evenly_spaced_instants() -> None:
    events = [ev("a", 0, 0), ev("a", 0, 50), ev("b", 0, 100), ev("a", 20, 640)]
    tl = service_timeline(events, {"a": 1.0, "b": 1.0})
    assert len(tl.t_ms) == TIMELINE_POINTS and tl.t_ms[0] == 0 and tl.t_ms[-1] == 640
    assert tl.t_ms[5] == 50 and tl.t_ms[10] == 100
    a, b = tl.series
    assert (a.key, a.keys, b.key) == ("a", 1, "b")
    assert a.served[0] == 1 and a.served[5] == 2 and a.served[-2] == 2 and a.served[-1] == 3
    assert b.served[9] == 0 and b.served[10] == 1
    assert tl.wait_percentiles == list(WAIT_PERCENTILES)
    assert a.wait_quantiles[0] == 0 and a.wait_quantiles[-1] == 620  # min .. max wait


def test_a_key_never_served_is_a_flat_line() -> None:
    tl = service_timeline([ev("a", 0, 10)], {"a": 1.0, "idle": 1.0})
    idle = tl.series[1]
    assert idle.served == [0] * TIMELINE_POINTS and set(idle.wait_quantiles) == {0}


def test_many_keys_pool_the_least_served_but_keep_the_light_key() -> None:
    weights = {f"k{i}": 1.0 for i in range(30)}
    events = [ev(f"k{i}", 0, t) for i in range(29) for t in range(i + 1)]  # k_i served i+1
    events.append(ev("k29", 0, 5))  # the light key: served once, least of all but k0
    tl = service_timeline(events, weights, light_key="k29")
    assert len(tl.series) == MAX_SERIES
    names = [s.key for s in tl.series]
    assert "k29" in names and "k28" in names and "k0" not in names
    pooled = tl.series[-1]
    assert pooled.keys == 30 - (MAX_SERIES - 1) and pooled.key == f"{pooled.keys} other keys"
    assert sum(s.served[-1] for s in tl.series) == len(events)


def test_no_events_gives_zero_instants() -> None:
    tl = service_timeline([], {"a": 1.0})
    assert set(tl.t_ms) == {0} and tl.series[0].served[-1] == 0


def test_readable_json_keeps_number_lists_on_one_line() -> None:
    data = {"t_ms": [0, 1, 2], "series": [{"key": "é", "served": [1, 2]}], "none": None}
    text = readable_json(data)
    assert json.loads(text) == data
    assert '"t_ms": [0, 1, 2],' in text and '"served": [1, 2]' in text
