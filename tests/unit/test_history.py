"""The app's time buckets: bounded, merged as time grows, and the per-key share/weight per
bucket is the figure ckviz.metrics computes from the events."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ckviz.metrics import contention
from ckviz.model.history import BUCKETS, TrackLayers, squeeze
from ckviz.model.snapshot import DequeueEvent
from ckviz.sim.engine.history import HistoryRecorder, TrendRecorder

WEIGHTS = {"a": 1.0, "b": 2.0, "c": 1.0}


def test_a_long_run_keeps_at_most_the_bucket_count() -> None:
    recorder = HistoryRecorder({"a": 1.0})
    for t in range(0, 100_000, 7):
        recorder.enqueued("a", t)
        recorder.dequeued("a", t)
    history = recorder.view(100_000)
    assert history.buckets <= BUCKETS and history.width_ms >= 100_000 / BUCKETS
    cells = history.cells("a")
    assert len(cells) == history.buckets
    assert sum(c.served for c in cells if c is not None) == len(range(0, 100_000, 7))


def test_a_starved_key_waits_in_every_bucket_after_it_arrived() -> None:
    recorder = HistoryRecorder({"heavy": 1.0, "light": 1.0})
    recorder.enqueued("light", 5)
    for t in range(0, 200):
        recorder.enqueued("heavy", t)
        recorder.dequeued("heavy", t)
    history = recorder.view(199)
    light = history.cells("light")
    assert light[0] is None  # bucket 0 (4 ms wide by now) ends before it arrived
    assert all(c is not None and c.served == 0 and c.depth == 1 for c in light[1:])
    assert all(c is not None and c.served for c in history.cells("heavy"))
    shares = history.shares("light")
    assert shares[-1] == 0.0


def test_an_earlier_view_does_not_change_as_the_run_goes_on() -> None:
    recorder = HistoryRecorder({"a": 1.0, "b": 1.0})
    recorder.enqueued("a", 0)
    early = recorder.view(3)
    before = early.cells("a")
    for t in range(1, 500):
        recorder.enqueued("b", t)
        recorder.dequeued("a" if t == 1 else "b", t)
    assert early.cells("a") == before and early.cells("b") == [None] * early.buckets


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.booleans()), min_size=1, max_size=80))
def test_every_view_keeps_the_tracks_of_its_moment_over_many_layers(
    moves: list[tuple[str, bool]],
) -> None:
    """A view shares the tracks that did not change with the views before it (layers, now and
    then flattened): each view kept reads every key's track as a copy made at its moment."""
    recorder = HistoryRecorder(dict.fromkeys("abcdef", 1.0))
    queued = dict.fromkeys("abcdef", 0)
    kept = []
    for t, (key, enqueue) in enumerate(moves):
        if enqueue or not queued[key]:
            recorder.enqueued(key, t)
            queued[key] += 1
        else:
            recorder.dequeued(key, t)
            queued[key] -= 1
        view = recorder.view(t)
        frozen = {k: log.freeze() for k, log in recorder._logs.items()}  # every key, afresh
        kept.append((view, {k: frozen.get(k) for k in "abcdef"}))
    assert len(kept) > TrackLayers.LAYERS or len(moves) <= TrackLayers.LAYERS
    for view, copied in kept:
        assert {k: view.tracks.get(k) for k in "abcdef"} == copied
        assert dict(view.tracks) == {k: v for k, v in copied.items() if v is not None}


def test_squeeze_combines_neighbours() -> None:
    assert squeeze([1, 2, 3, 4, 5], 2, max) == [3, 5]
    assert squeeze([1, 2, 3], 5, max) == [1, 2, 3]


def test_the_trend_keeps_the_last_figure_of_each_bucket() -> None:
    trend = TrendRecorder()
    trend.record(0, None, None)
    trend.record(10, 0.5, 0.9)
    last = trend.record(10_000, 0.25, 0.7)
    assert len(last.worst) <= BUCKETS and last.worst[-1] == 0.25
    # the first bucket now spans 0-10 ms: its last figure wins; later empty buckets carry it
    assert last.worst[0] == 0.5 and last.jain[1] == 0.9


Step = tuple[str, str, int]  # (enqueue|dequeue, key, dt)


@st.composite
def runs(draw: st.DrawFn) -> list[Step]:
    """A plausible sequence: dequeues only of keys with runs queued, time never going back, and
    an instant's arrivals before its dequeues (as the driver steps)."""
    steps: list[Step] = []
    queued = dict.fromkeys(WEIGHTS, 0)
    for _ in range(draw(st.integers(1, 120))):
        dt = draw(st.sampled_from([0, 0, 1, 3, 40, 500]))
        waiting = [k for k, n in queued.items() if n]
        if waiting and draw(st.booleans()):
            key = draw(st.sampled_from(waiting))
            queued[key] -= 1
            steps.append(("dequeue", key, dt))
        else:
            key = draw(st.sampled_from(list(WEIGHTS)))
            queued[key] += 1
            after_a_dequeue = steps and steps[-1][0] == "dequeue"
            steps.append(("enqueue", key, max(dt, 1) if after_a_dequeue else dt))
    return steps


@settings(max_examples=150, deadline=None)
@given(runs())
@pytest.mark.slow
def test_the_last_bucket_share_is_the_metric_from_the_events(steps: list[Step]) -> None:
    recorder = HistoryRecorder(WEIGHTS)
    t = 0
    arrivals: dict[str, list[int]] = {k: [] for k in WEIGHTS}
    events: list[DequeueEvent] = []
    for kind, key, dt in steps:
        t += dt
        if kind == "enqueue":
            recorder.enqueued(key, t)
            arrivals[key].append(t)
        else:
            recorder.dequeued(key, t)
            events.append(DequeueEvent(key, f"{key}#{len(events)}", arrivals[key].pop(0), t))
    waiting = {k: times[0] for k, times in arrivals.items() if times}
    expected = contention(events, WEIGHTS, waiting_since=waiting)
    history = recorder.view(t)
    for key in WEIGHTS:
        shares = history.shares(key)
        if key in expected:
            assert shares[-1] == pytest.approx(expected[key]), key
        else:
            assert shares[-1] is None, key
